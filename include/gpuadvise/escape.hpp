#pragma once
// User text as each output format must carry it (docs/testing.md, "Security"): one function per format, used by
// every renderer, so a name from a workload, catalogue or probe file cannot move the cursor, forge a line,
// open a markdown link, start a spreadsheet formula or become code or a shell word of its own.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpuadvise {

// Terminal text: C0 and C1 control characters, DEL and the bidirectional overrides are written as visible
// escapes (\n, \t, \x1b, \u202e); invalid UTF-8 bytes as \xNN. Printable text is unchanged.
std::string printable(std::string_view text);

// A markdown table cell: printable, then `\`, `|`, backticks, `[`, `]` backslash-escaped and `<`, `>`, `&`
// as entities (no HTML, no link, no code span can open).
std::string markdown_text(std::string_view text);

// A CSV text field (RFC 4180: always quoted, quotes doubled), printable, with a leading `'` when it would start
// with `=`, `+`, `-`, `@`, a tab or a carriage return (OWASP, "CSV Injection").
std::string csv_text(std::string_view text);

// One POSIX shell word: as it is when it holds only [A-Za-z0-9_@%+=:,./-], else single-quoted (a `'` as '\'').
std::string shell_word(std::string_view text);

// A Python 3 string literal that evaluates to the text (printable ASCII as it is; every other code point as
// \xNN, \uNNNN or \UNNNNNNNN; invalid UTF-8 as U+FFFD): never more than one line, never code.
std::string python_literal(std::string_view text);

// The words of a POSIX shell command line without expansions: blanks separate, '…' and "…" quote, a backslash
// escapes the next character (outside single quotes). The inverse of shell_word. nullopt for an unclosed quote.
std::optional<std::vector<std::string>> split_shell_words(std::string_view line);

}  // namespace gpuadvise
