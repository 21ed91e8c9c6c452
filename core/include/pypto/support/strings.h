// Small string helpers shared by the core (joining, formatting lists).
#pragma once

#include <sstream>
#include <string>
#include <vector>

namespace pypto {

template <class Range, class F>
std::string JoinMapped(const Range& items, const std::string& sep, F&& to_string) {
  std::ostringstream os;
  bool first = true;
  for (const auto& item : items) {
    if (!first) os << sep;
    first = false;
    os << to_string(item);
  }
  return os.str();
}

inline std::string Join(const std::vector<std::string>& items, const std::string& sep) {
  return JoinMapped(items, sep, [](const std::string& s) { return s; });
}

// `text` between `quote`s, with backslashes and quotes escaped: a C++ ("), Python (') or C string literal.
inline std::string QuotedLiteral(const std::string& text, char quote) {
  std::string out(1, quote);
  for (char c : text) {
    if (c == '\\' || c == quote) out += '\\';
    out += c;
  }
  return out + quote;
}

}  // namespace pypto
