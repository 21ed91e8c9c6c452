#pragma once
#define PYPTO_VERSION_STRING "0.1.0"
