// The bottom line: a spinner while a turn runs (with the model's latest progress note), the model and
// facet, the context meter and the connection. While disconnected a banner replaces the spinner, so a
// stale screen never looks live.
import { Box, Text } from "ink";
import { useEffect, useState, type ReactNode } from "react";
import type { FacetColors } from "../../src/agent/context/facets.ts";
import { facetColor, useTheme } from "../theme/theme.ts";
import type { Health } from "../view-store.ts";

const FRAMES = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];

function Spinner(): ReactNode {
  const [i, setI] = useState(0);
  // 5 steps a second: every step redraws the whole live area, so a faster spinner costs CPU while streaming.
  useEffect(() => {
    const t = setInterval(() => setI((n) => (n + 1) % FRAMES.length), 200);
    return () => clearInterval(t);
  }, []);
  return <Text color={useTheme().colors.accent}>{FRAMES[i]}</Text>;
}

export function compactTokens(n: number): string {
  if (n < 1000) return String(n);
  if (n < 1_000_000) return `${(n / 1000).toFixed(n < 10_000 ? 1 : 0)}k`;
  return `${(n / 1_000_000).toFixed(1)}M`;
}

/**
 * The tokens the next request would carry, and their share of the model's window. Under 1% reads "<1%",
 * so a small context is not shown as empty.
 */
export function contextMeter(used: number | null, window: number | undefined): string {
  if (used === null) return "context —";
  if (!window) return `context ${compactTokens(used)}`;
  const share = (used / window) * 100;
  return `context ${compactTokens(used)}/${compactTokens(window)} (${used > 0 && share < 1 ? "<1" : Math.round(share)}%)`;
}

export interface StatusProps {
  health: Health;
  busy: boolean;
  catchingUp: boolean;
  progress: string | null;
  model: string | null;
  facet: string | null;
  /** The active facet's colors from the daemon catalog: its name is painted in the one for the background. */
  facetColors?: FacetColors;
  /** What the context holds (tokens): the provider's newest report plus estimates of what came after it. */
  contextTokens: number | null;
  contextWindow: number | undefined;
  sessionState: string;
  /** What the session's priced messages cost (USD); null: nothing priced, nothing shown. */
  costUsd?: number | null;
  /** `workspace_write, no network` or `off`, and `ask` / `accept_edits` / `sandboxed`: shown unless off and ask. */
  sandbox?: string | null;
  autonomy?: string | null;
}

/** The permission mode in a few words: `sandboxed autonomy (workspace_write, no network)`; null for the default. */
export function permissionMode(sandbox: string | null | undefined, autonomy: string | null | undefined): string | null {
  const off = !sandbox || sandbox === "off";
  if (off && (!autonomy || autonomy === "ask")) return null;
  const level = !autonomy || autonomy === "ask" ? "ask every time" : autonomy === "accept_edits" ? "accept edits" : "sandboxed autonomy";
  return off ? `${level} · no sandbox` : `${level} (${sandbox})`;
}

/** The session's cost: cents from one cent up, "<$0.01" below (a figure of $0.00 would read as free). */
export function formatCost(usd: number): string {
  if (usd > 0 && usd < 0.005) return "<$0.01";
  return `$${usd.toFixed(2)}`;
}

/** Fetch errors run on with advice for developers; the first sentence says what happened. */
function firstSentence(message: string): string {
  return message.split(/\.\s/)[0]!.replace(/\.$/, "");
}

export function ConnectionBanner({ health }: { health: Health }): ReactNode {
  const c = useTheme().colors;
  if (health.state !== "disconnected") return null;
  return (
    <Box borderStyle="round" borderColor={c.error} paddingX={1} flexDirection="column">
      <Text color={c.error} bold>{`DISCONNECTED — reconnecting${health.attempts > 1 ? ` (attempt ${health.attempts})` : ""}. The screen is not live.`}</Text>
      {health.message ? <Text color={c.error} wrap="truncate-end">{firstSentence(health.message)}</Text> : null}
    </Box>
  );
}

export function StatusLine(props: StatusProps): ReactNode {
  const theme = useTheme();
  const c = theme.colors;
  const live = props.health.state === "connected";
  let left: ReactNode;
  if (props.health.state === "connecting") left = <Text color={c.warning}>connecting…</Text>;
  else if (props.health.state === "ended") left = <Text color={c.warning}>session stopped · Ctrl+D leaves</Text>;
  else if (!live) left = <Text color={c.error}>offline</Text>;
  else if (props.catchingUp) left = <Text color={c.warning}>loading history…</Text>;
  else if (props.sessionState !== "running") left = <Text color={c.warning}>{`session ${props.sessionState}`}</Text>;
  else if (props.busy)
    left = (
      <Text>
        <Spinner /> <Text color={c.accent}>{props.progress ?? "working"}</Text>
        <Text dimColor> (Esc to interrupt)</Text>
      </Text>
    );
  else left = <Text color={c.success}>ready</Text>;
  return (
    <Box justifyContent="space-between">
      {left}
      <Text wrap="truncate-start">
        {permissionMode(props.sandbox, props.autonomy) ? <Text color={c.warning}>{`${permissionMode(props.sandbox, props.autonomy)} · `}</Text> : null}
        <Text dimColor>{`${props.model ?? "model —"} · `}</Text>
        {props.facet ? (
          <>
            <Text dimColor>facet </Text>
            <Text color={facetColor(theme, props.facetColors)} dimColor={!facetColor(theme, props.facetColors)}>
              {props.facet}
            </Text>
            <Text dimColor>{" · "}</Text>
          </>
        ) : null}
        <Text dimColor>{contextMeter(props.contextTokens, props.contextWindow)}</Text>
        {props.costUsd != null ? <Text dimColor>{` · ${formatCost(props.costUsd)}`}</Text> : null}
      </Text>
    </Box>
  );
}
