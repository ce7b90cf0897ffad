// The project trust dialog alone: it lists exactly what would run; trust, not now and Ctrl+C answer.
import { describe, expect, test } from "bun:test";
import { render } from "ink-testing-library";
import { TrustDialog, type TrustDecision } from "../../tui/trust/trust-dialog.tsx";

const ITEMS = ["tool server 'probe' runs: sh -c 'touch marker; exec cat'", "shell init script init.sh (sourced by the shell tool before its first command)"];

async function answer(keys: string, state: "untrusted" | "changed" = "untrusted") {
  const decisions: TrustDecision[] = [];
  const ui = render(<TrustDialog file=".agent/config.yaml" state={state} items={ITEMS} onDecide={(d) => decisions.push(d)} />);
  const before = ui.lastFrame() ?? "";
  await Bun.sleep(20);
  ui.stdin.write(keys);
  for (let i = 0; i < 200 && decisions.length === 0; i++) await Bun.sleep(5);
  await Bun.sleep(20);
  return { decisions, before, after: ui.lastFrame() ?? "" };
}

describe("trust dialog", () => {
  test("lists the command lines and the script, then Enter trusts", async () => {
    const r = await answer("\r");
    expect(r.before).toContain(".agent/config.yaml is not trusted yet. It wants to:");
    expect(r.before).toContain("tool server 'probe' runs: sh -c 'touch marker; exec cat'");
    expect(r.before).toContain("shell init script init.sh");
    expect(r.before).toContain("1. Trust this project");
    expect(r.decisions).toEqual(["trust"]);
    expect(r.after).toContain("Trusted.");
  });

  test("not now declines and says the session starts without them", async () => {
    const r = await answer("2");
    expect(r.decisions).toEqual(["decline"]);
    expect(r.after).toContain("Not trusted: the session starts without them. Run 'agent trust' to allow them later.");
    expect(r.after).not.toContain("tool server 'probe'");
  });

  test("a changed project says so; Ctrl+C cancels", async () => {
    const r = await answer("\x03", "changed");
    expect(r.before).toContain(".agent/config.yaml changed since you trusted it");
    expect(r.decisions).toEqual(["cancel"]);
  });
});
