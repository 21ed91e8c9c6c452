// Umbrella header for the IR node classes.
#pragma once

#include "pypto/ir/attrs.h"
#include "pypto/ir/dtype.h"
#include "pypto/ir/enums.h"
#include "pypto/ir/expr.h"
#include "pypto/ir/function.h"
#include "pypto/ir/node.h"
#include "pypto/ir/stmt.h"
#include "pypto/ir/type.h"
