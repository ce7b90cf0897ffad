// Shows the project trust dialog on the terminal and resolves with the answer, before the conversation
// view starts (it is its own short Ink render, so the view itself is not involved).
import { render } from "ink";
import { terminalTheme } from "../theme/resolve.ts";
import { ThemeProvider } from "../theme/theme.ts";
import { rawBeforeFirstFrame } from "../raw-before-first-frame.ts";
import { TrustDialog, type TrustDecision, type TrustDialogProps } from "./trust-dialog.tsx";

export async function askProjectTrust(props: Omit<TrustDialogProps, "onDecide">): Promise<TrustDecision> {
  const { theme } = await terminalTheme({ stdin: process.stdin, stdout: process.stdout });
  const answer = Promise.withResolvers<TrustDecision>();
  const cooked = rawBeforeFirstFrame(process.stdin);
  const app = render(
    <ThemeProvider value={theme}>
      <TrustDialog {...props} onDecide={answer.resolve} />
    </ThemeProvider>,
    { exitOnCtrlC: false },
  );
  const decision = await answer.promise;
  // The answer's line is drawn before Ink lets go of the terminal.
  await Bun.sleep(20);
  app.unmount();
  await app.waitUntilExit();
  cooked();
  return decision;
}
