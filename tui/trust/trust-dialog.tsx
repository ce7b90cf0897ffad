// The project trust dialog, shown before a session starts in a project whose config wants to run
// programs or send credentials elsewhere (src/config/trust): it lists exactly what would run and where
// credentials would go, and offers trust or not now. Not now starts the session without them.
import { Box, Text, useInput } from "ink";
import { useState, type ReactNode } from "react";
import { useTheme } from "../theme/theme.ts";

/** cancel: Ctrl+C, nothing starts. */
export type TrustDecision = "trust" | "decline" | "cancel";

export interface TrustDialogProps {
  /** The file a person reviews (the project config), as shown. */
  file: string;
  /** `changed`: trusted once, different now. */
  state: "untrusted" | "changed";
  /** One line per setting: the command line, the script, the address. */
  items: string[];
  onDecide(decision: TrustDecision): void;
}

const CHOICES: { label: string; decision: Exclude<TrustDecision, "cancel"> }[] = [
  { label: "Trust this project (as it is now; a change asks again)", decision: "trust" },
  { label: "Not now: start the session without them", decision: "decline" },
];

/** What the dialog leaves on screen once answered. */
export function decidedLine(decision: TrustDecision): string {
  if (decision === "cancel") return "Cancelled: no session was started.";
  return decision === "trust"
    ? "Trusted. 'agent trust --revoke' takes it back."
    : "Not trusted: the session starts without them. Run 'agent trust' to allow them later.";
}

export function TrustDialog({ file, state, items, onDecide }: TrustDialogProps): ReactNode {
  const c = useTheme().colors;
  const [selected, setSelected] = useState(0);
  const [decided, setDecided] = useState<TrustDecision | null>(null);
  const decide = (decision: TrustDecision) => {
    if (decided) return;
    setDecided(decision);
    onDecide(decision);
  };
  useInput((input, key) => {
    if (key.ctrl && input === "c") decide("cancel");
    else if (key.upArrow || key.downArrow || key.tab) setSelected((s) => (s + 1) % CHOICES.length);
    else if (input === "1" || input === "t" || input === "y") decide("trust");
    else if (input === "2" || input === "n" || key.escape) decide("decline");
    else if (key.return) decide(CHOICES[selected]!.decision);
  }, { isActive: decided === null });
  if (decided) return <Text color={decided === "trust" ? c.success : c.warning}>{decidedLine(decided)}</Text>;
  return (
    <Box borderStyle="round" borderColor={c.warning} paddingX={1} flexDirection="column">
      <Text bold>{state === "changed" ? `${file} changed since you trusted it. It wants to:` : `${file} is not trusted yet. It wants to:`}</Text>
      {items.map((item, i) => (
        <Text key={i}>  • {item}</Text>
      ))}
      <Text color={c.muted}>Trust it only if you trust whoever wrote this project.</Text>
      {CHOICES.map((choice, i) => (
        <Text key={choice.decision} color={i === selected ? c.accent : undefined}>
          {i === selected ? "❯" : " "} {i + 1}. {choice.label}
        </Text>
      ))}
    </Box>
  );
}
