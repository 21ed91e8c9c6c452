// Python lexical pieces of the IR printer: literals, identifiers, comments and
// unique names.
#pragma once

#include <string>
#include <unordered_set>
#include <vector>

namespace pypto::ir::printer {

// The text Python's repr gives `value` (shortest that reads back exactly, e.g.
// "1.0", "1e-05", "100000.0"); infinities and NaN as float("inf"),
// float("-inf") and float("nan").
std::string FloatLiteral(double value);

// `text` as a double-quoted Python string literal. Control characters and bytes
// that are not UTF-8 are escaped; other UTF-8 text stays as it is.
std::string StringLiteral(const std::string& text);

// The lines of a comment text, each safe after a `#`: line breaks split lines,
// other control characters and bytes that are not UTF-8 become '?'.
std::vector<std::string> CommentLines(const std::string& text);

bool IsKeyword(const std::string& name);
// A Python identifier (ASCII) that is not a keyword.
bool IsIdentifier(const std::string& name);
// `hint` made an identifier: other characters become '_', a leading digit gets
// a '_' in front, a keyword gets a '_' appended, an empty hint is "v".
std::string ToIdentifier(const std::string& hint);

// Hands out unique identifiers: the first claim of a hint gets the hint, later
// ones hint_1, hint_2, ... (skipping names already taken).
class NameTable {
 public:
  void Reserve(const std::string& name) { taken_.insert(name); }
  std::string Claim(const std::string& hint);

 private:
  std::unordered_set<std::string> taken_;
};

}  // namespace pypto::ir::printer
