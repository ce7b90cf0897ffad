// Text that wraps without a leading space on its continuation rows. Ink wraps with wrap-ansi's
// `trim: false`, which starts each continuation row with the space the line was broken at; this strips
// that one space (after any style codes) from every row but the first. Only for text without line
// breaks of its own: a line that starts with a space on purpose would lose it too.
import { Text, Transform, type TextProps } from "ink";
import type { ReactNode } from "react";

const BROKEN_AT_SPACE = /^((?:\x1b\[[0-9;]*m)*) /;

export function unindentContinuation(line: string, index: number): string {
  return index === 0 ? line : line.replace(BROKEN_AT_SPACE, "$1");
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
