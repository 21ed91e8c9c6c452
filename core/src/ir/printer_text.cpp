#include "printer_text.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace pypto::ir::printer {

namespace {

bool IsAsciiDigit(char c) { return c >= '0' && c <= '9'; }
bool IsAsciiLetter(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool IsIdentifierChar(char c) { return IsAsciiLetter(c) || IsAsciiDigit(c) || c == '_'; }
bool IsControl(unsigned char c) { return c < 0x20 || c == 0x7f; }

// Length of the well-formed UTF-8 sequence that starts at text[pos], or 0
// (overlong forms, surrogates and code points past U+10FFFF are not well formed).
size_t Utf8SequenceLength(const std::string& text, size_t pos) {
  auto byte = [&](size_t i) { return static_cast<unsigned char>(text[i]); };
  const unsigned char lead = byte(pos);
  if (lead < 0x80) return 1;
  size_t length = 0;
  unsigned char second_min = 0x80;
  unsigned char second_max = 0xBF;
  if (lead >= 0xC2 && lead <= 0xDF) {
    length = 2;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    length = 3;
    if (lead == 0xE0) second_min = 0xA0;
    if (lead == 0xED) second_max = 0x9F;
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    length = 4;
    if (lead == 0xF0) second_min = 0x90;
    if (lead == 0xF4) second_max = 0x8F;
  } else {
    return 0;
  }
  if (pos + length > text.size()) return 0;
  if (byte(pos + 1) < second_min || byte(pos + 1) > second_max) return 0;
  for (size_t i = 2; i < length; ++i) {
    if ((byte(pos + i) & 0xC0) != 0x80) return 0;
  }
  return length;
}

std::string HexEscape(unsigned char c) {
  char text[8];
  std::snprintf(text, sizeof text, "\\x%02x", c);
  return text;
}

// `digits` (no point) times 10^(exponent - digits + 1), written without an exponent.
std::string FixedNotation(const std::string& digits, int exponent) {
  if (exponent < 0) return "0." + std::string(-exponent - 1, '0') + digits;
  const size_t integer_digits = static_cast<size_t>(exponent) + 1;
  if (digits.size() <= integer_digits) return digits + std::string(integer_digits - digits.size(), '0') + ".0";
  return digits.substr(0, integer_digits) + "." + digits.substr(integer_digits);
}

}  // namespace

std::string FloatLiteral(double value) {
  if (std::isnan(value)) return "float(\"nan\")";
  if (std::isinf(value)) return value > 0 ? "float(\"inf\")" : "float(\"-inf\")";
  // The shortest digits that read back exactly, as d.ddde±XX; Python's repr
  // then writes them without an exponent when -4 <= exponent < 16.
  char buffer[40];
  const auto result = std::to_chars(buffer, buffer + sizeof buffer, value, std::chars_format::scientific);
  std::string scientific(buffer, result.ptr);
  std::string sign;
  if (scientific.front() == '-') {
    sign = "-";
    scientific.erase(0, 1);
  }
  const size_t e = scientific.find('e');
  const int exponent = std::atoi(scientific.c_str() + e + 1);
  std::string digits = scientific.substr(0, e);
  digits.erase(std::remove(digits.begin(), digits.end(), '.'), digits.end());
  if (exponent >= -4 && exponent < 16) return sign + FixedNotation(digits, exponent);
  std::string mantissa = digits.substr(0, 1);
  if (digits.size() > 1) mantissa += "." + digits.substr(1);
  char exponent_text[16];
  std::snprintf(exponent_text, sizeof exponent_text, "e%c%02d", exponent < 0 ? '-' : '+', std::abs(exponent));
  return sign + mantissa + exponent_text;
}

std::string StringLiteral(const std::string& text) {
  std::string out = "\"";
  for (size_t i = 0; i < text.size();) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c == '\\' || c == '"') {
      out += '\\';
      out += static_cast<char>(c);
      ++i;
      continue;
    }
    if (c == '\n' || c == '\t' || c == '\r') {
      out += c == '\n' ? "\\n" : c == '\t' ? "\\t" : "\\r";
      ++i;
      continue;
    }
    const size_t length = IsControl(c) ? 0 : Utf8SequenceLength(text, i);
    if (length == 0) {
      out += HexEscape(c);
      ++i;
      continue;
    }
    out.append(text, i, length);
    i += length;
  }
  return out + "\"";
}

std::vector<std::string> CommentLines(const std::string& text) {
  std::vector<std::string> lines(1);
  for (size_t i = 0; i < text.size();) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c == '\n' || c == '\r') {
      lines.emplace_back();
      i += (c == '\r' && i + 1 < text.size() && text[i + 1] == '\n') ? 2 : 1;
      continue;
    }
    const size_t length = (IsControl(c) && c != '\t') ? 0 : Utf8SequenceLength(text, i);
    if (length == 0) {
      lines.back() += '?';
      ++i;
      continue;
    }
    lines.back().append(text, i, length);
    i += length;
  }
  return lines;
}

bool IsKeyword(const std::string& name) {
  static const std::unordered_set<std::string> kKeywords = {
      "False", "None",   "True",    "and",      "as",       "assert", "async", "await",  "break",
      "class", "continue", "def",   "del",      "elif",     "else",   "except", "finally", "for",
      "from",  "global", "if",      "import",   "in",       "is",     "lambda", "nonlocal", "not",
      "or",    "pass",   "raise",   "return",   "try",      "while",  "with",  "yield"};
  return kKeywords.count(name) > 0;
}

bool IsIdentifier(const std::string& name) {
  if (name.empty() || IsAsciiDigit(name.front())) return false;
  if (!std::all_of(name.begin(), name.end(), IsIdentifierChar)) return false;
  return !IsKeyword(name);
}

std::string ToIdentifier(const std::string& hint) {
  if (hint.empty()) return "v";
  std::string name = hint;
  std::replace_if(name.begin(), name.end(), [](char c) { return !IsIdentifierChar(c); }, '_');
  if (IsAsciiDigit(name.front())) name.insert(0, "_");
  if (IsKeyword(name)) name += "_";
  return name;
}

std::string NameTable::Claim(const std::string& hint) {
  const std::string base = ToIdentifier(hint);
  std::string name = base;
  for (int suffix = 1; taken_.count(name) > 0; ++suffix) name = base + "_" + std::to_string(suffix);
  taken_.insert(name);
  return name;
}

}  // namespace pypto::ir::printer
