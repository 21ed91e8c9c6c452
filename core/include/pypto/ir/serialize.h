// Serialization of IR to bytes and files and back. Every node kind round
// trips; shared nodes stay shared and variable identity is preserved within
// one serialized unit. The format is MessagePack (a versioned header, then
// nodes as {"id", "type", "fields"} maps, later occurrences as {"ref": id}).
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "pypto/ir/ir.h"

namespace pypto::ir {

std::vector<uint8_t> Serialize(const NodePtr& node);
// Throws a ValueError naming what is wrong with malformed or foreign input.
NodePtr Deserialize(const std::vector<uint8_t>& bytes);

void SaveToFile(const NodePtr& node, const std::filesystem::path& path);
NodePtr LoadFromFile(const std::filesystem::path& path);

// The same structure as JSON text, for debugging (`pypto ir dump`).
std::string SerializeToJson(const NodePtr& node, int indent = 2);

}  // namespace pypto::ir
