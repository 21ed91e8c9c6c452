// A region of user source: file, 1-based lines, 1-based character columns.
#pragma once

#include <memory>
#include <string>

namespace pypto {

struct Span {
  std::string filename;
  int begin_line = 0;
  int begin_col = 0;
  int end_line = 0;
  int end_col = 0;

  Span() = default;
  Span(std::string file, int line, int col, int eline = 0, int ecol = 0)
      : filename(std::move(file)), begin_line(line), begin_col(col), end_line(eline), end_col(ecol) {}

  bool known() const { return begin_line > 0; }
  // "file.py:12:5", or "<unknown>".
  std::string ToString() const;
  bool operator==(const Span& o) const = default;
};

}  // namespace pypto
