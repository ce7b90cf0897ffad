// Reading terminal output the way a color check needs it.

/** Every SGR sequence that sets a color: 30-39, 40-49, 90-97, 100-107 (38/48 with their 5;n or 2;r;g;b). */
export function colorEscapes(output: string): string[] {
  const found: string[] = [];
  for (const m of output.matchAll(/\x1b\[([\d;:]*)m/g)) {
    const params = m[1]!.split(/[;:]/).map(Number);
    for (let i = 0; i < params.length; i++) {
      const p = params[i]!;
      if ((p >= 30 && p <= 49) || (p >= 90 && p <= 97) || (p >= 100 && p <= 107)) found.push(m[0]);
      if (p === 38 || p === 48) i += params[i + 1] === 5 ? 2 : 4;
    }
  }
  return found;
}
