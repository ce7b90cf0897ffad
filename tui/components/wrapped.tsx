// Text that wraps without a leading space on its continuation rows. Ink wraps with wrap-ansi's
// `trim: false`, which leaves the space a line was broken at at the start of the next row (or the end of
// the row before); this strips that one space (around any style codes). Only for text without line
// breaks of its own: a line that starts with a space on purpose would lose it too.
import { Text, Transform, type TextProps } from "ink";
import type { ReactNode } from "react";

const BROKEN_AT_SPACE = /^((?:\x1b\[[0-9;]*m)*) /;
const SPACE_AT_END = / ((?:\x1b\[[0-9;]*m)*)$/;

/** Drops the space a row was broken at: at the start of a continuation row, or at the end of the row before. */
export function unindentContinuation(line: string, index: number): string {
  const trimmed = line.replace(SPACE_AT_END, "$1");
  return index === 0 ? trimmed : trimmed.replace(BROKEN_AT_SPACE, "$1");
}

export function Wrapped({ children, ...props }: TextProps & { children?: ReactNode }): ReactNode {
  return (
    <Transform transform={unindentContinuation}>
      <Text {...props}>{children}</Text>
    </Transform>
  );
}

/** Each line of `text` as its own wrapped row (so a line's own leading spaces stay). */
export function WrappedLines({ text, ...props }: TextProps & { text: string }): ReactNode {
  return text.split("\n").map((line, i) => (
    <Wrapped key={i} {...props}>
      {line || " "}
    </Wrapped>
  ));
}
