// Serialization of IR to bytes and files and back. Every node kind round
// trips with every field (names, spans and comments included); shared nodes
// stay shared and variable identity is preserved within one serialized unit
// (loaded variables are new objects with new unique ids). The format is
// MessagePack: {"format": "pypto-ir", "version": 1, "root": node}, where a
// node's first occurrence is {"id", "type", "span", "fields"} (statements add
// "leading_comments") and later ones are {"ref": id}. Data nested deeper than
// 4096 levels (about 2048 nested nodes) is refused on both sides, so that a
// crafted file cannot exhaust the stack.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "pypto/ir/ir.h"

namespace pypto::ir {

// Throws a ValueError when the IR nests too deeply to be read back.
std::vector<uint8_t> Serialize(const NodePtr& node);
// Throws a ValueError naming what is wrong with malformed or foreign input.
NodePtr Deserialize(const std::vector<uint8_t>& bytes);

// Throw an IOError (ErrorKind::kIO) naming the path when the file cannot be
// written or read; LoadFromFile's ValueErrors name the path too.
void SaveToFile(const NodePtr& node, const std::filesystem::path& path);
NodePtr LoadFromFile(const std::filesystem::path& path);

// The same structure as JSON text, for debugging (`pypto ir dump`).
std::string SerializeToJson(const NodePtr& node, int indent = 2);

}  // namespace pypto::ir
