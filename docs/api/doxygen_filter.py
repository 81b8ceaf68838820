#!/usr/bin/env python3
"""Doxygen's input filter for include/pams/ (docs/api/Doxyfile, INPUT_FILTER).

The public headers are commented in LevelDB's style: plain // comments, the
file's opening block saying what it is, a comment above each declaration
saying its contract. Doxygen reads only its own comment markers, so this
filter shows it the headers with those comments as documentation, leaving
the files themselves as they are:

* the opening block becomes the file's documentation (the blank line after
  it carries the @file command);
* a // comment on lines of its own becomes ///, the documentation of the
  declaration below it; one after a declaration on the same line ("int x;  //
  ...") becomes ///<, the documentation of that declaration;
* comments inside function bodies stay plain comments (they explain code,
  not contracts).

The output has the input's lines, one for one, so that Doxygen's warnings
name the header's real line. Text is escaped where Doxygen would read it as
a command or an HTML tag (\\ @ < > & # %), but for text in double quotes,
which Doxygen shows as it is; ".." (a list's end to Doxygen) becomes the
two-dot leader.

Usage: doxygen_filter.py HEADER (Doxygen calls it so; it writes stdout).
"""
import re
import sys

_ESCAPES = str.maketrans({"\\": "\\\\", "@": "\\@", "<": "\\<", ">": "\\>",
                          "&": "\\&", "#": "\\#", "%": "\\%"})
_OWN_LINE = re.compile(r"^(\s*)//(?!/)( ?)(.*)$")
# A declaration followed by a comment: "int x = 0;  // text" or "kA,  // text".
_TRAILING = re.compile(r"^(\s*[^/\s].*?[;,])(\s*)//(?!/)( ?)(.*)$")


# "0 .. n": Doxygen reads ".." as the end of a list, and an escaped dot as
# the end of the brief; the two-dot leader (U+2025) reads the same.
_TWO_DOTS = re.compile(r"(?<!\.)\.\.(?!\.)")


def escape(text):
    # Doxygen leaves text in double quotes as it is (no commands, no escapes
    # there): escape only what is outside them.
    parts = text.split('"')
    for i in range(0, len(parts), 2):
        parts[i] = _TWO_DOTS.sub("\u2025", parts[i].translate(_ESCAPES))
    return '"'.join(parts)


def convert(lines):
    out = []
    depth = 0            # brace depth inside function bodies
    body_depth = []      # depths at which function bodies opened
    in_opening = True    # still in the file's opening comment block
    for i, line in enumerate(lines):
        stripped = line.strip()
        if in_opening:
            m = _OWN_LINE.match(line)
            if m and not stripped.startswith("///"):
                out.append(f"/// {escape(m.group(3))}".rstrip())
                continue
            in_opening = False
            if stripped == "" and out:
                # The blank line after the opening block: its @file.
                out.append("/// @file")
                continue
        in_body = bool(body_depth)
        m = _OWN_LINE.match(line)
        if m and not in_body:
            out.append(f"{m.group(1)}/// {escape(m.group(3))}".rstrip())
        else:
            t = _TRAILING.match(line) if not in_body else None
            if t and "\"" not in t.group(1):
                out.append(f"{t.group(1)}{t.group(2)}///< {escape(t.group(4))}".rstrip())
            else:
                out.append(line)
        # Track function bodies: a "{" on a line that closes a parameter list
        # ("...) {", "...) const {", "...) override {") opens one.
        code = line.split("//", 1)[0]
        for ch in code:
            if ch == "{":
                depth += 1
                if not body_depth and re.search(r"\)[\w\s:&]*(->[^{]*)?\{", code) \
                        or body_depth:
                    body_depth.append(depth)
            elif ch == "}":
                if body_depth and body_depth[-1] == depth:
                    body_depth.pop()
                depth -= 1
    return out


def main():
    with open(sys.argv[1], encoding="utf-8") as f:
        lines = f.read().split("\n")
    sys.stdout.buffer.write("\n".join(convert(lines)).encode("utf-8"))


if __name__ == "__main__":
    main()
