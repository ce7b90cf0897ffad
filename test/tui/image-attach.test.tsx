// Issue 27 item 3, on the screen: `/image PATH` attaches an image file to the next prompt for a model
// that can see images (the prompt carries it as `images`), and is refused, saying why, for one that cannot.
import { describe, expect, test } from "bun:test";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { render } from "ink-testing-library";
import { App } from "../../tui/app.tsx";
import type { PromptImage } from "../../tui/session-actions.ts";
import { ViewStore } from "../../tui/view-store.ts";
import { testSnapshot } from "./sync-fixtures.ts";

const plain = (s: string) => s.replace(/\x1b\[[\d;:]*m/g, "");
// A 1x1 PNG.
const PNG = Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==", "base64");

function mount(model: string) {
  const dir = mkdtempSync(join(tmpdir(), "agent-image-"));
  writeFileSync(join(dir, "shot one.png"), PNG);
  writeFileSync(join(dir, "notes.txt"), "not an image");
  const store = new ViewStore();
  store.onSnapshot({ ...testSnapshot(0), active: { facet: "execute", model } }, false);
  store.visionModels = new Map([
    ["seeing", true],
    ["blind", false],
  ]);
  const sent: { text: string; images?: PromptImage[] }[] = [];
  const actions = { prompt: async (text: string, images?: PromptImage[]) => void sent.push({ text, images }), commands: async () => ({ commands: [] }) };
  const ui = render(<App store={store} actions={actions as never} onExit={() => {}} cwd={dir} />);
  const frame = () => plain(ui.lastFrame() ?? "");
  const wait = async (check: string | (() => boolean), what = String(check)) => {
    const deadline = Date.now() + 5000;
    while (!(typeof check === "string" ? frame().includes(check) : check())) {
      if (Date.now() > deadline) throw new Error(`waited for ${what}; the screen shows:\n${frame()}`);
      await Bun.sleep(10);
    }
  };
  const send = async (text: string) => {
    ui.stdin.write(text);
    await wait(`› ${text}`);
    ui.stdin.write("\r");
  };
  return { ui, frame, wait, send, sent };
}

describe("/image (issue 27 item 3)", () => {
  test("a vision model gets the image with the next prompt; the line above the editor says it is attached", async () => {
    const v = mount("seeing");
    await v.send("/image shot\\ one.png");
    await v.wait("⎘ image shot one.png (1 KB): sent with your next prompt");
    await v.send("what is in this picture?");
    await v.wait(() => v.sent.length === 1, "the prompt to be sent");
    expect(v.sent[0]!.text).toBe("what is in this picture?");
    expect(v.sent[0]!.images).toEqual([{ media_type: "image/png", data_base64: PNG.toString("base64") }]);
    await v.wait(() => !v.frame().includes("⎘ image shot one.png"), "the attachment line to go");
    // The next prompt goes without it.
    await v.send("and now?");
    await v.wait(() => v.sent.length === 2, "the second prompt");
    expect(v.sent[1]!.images).toBeUndefined();
    v.ui.unmount();
  });

  test("a model that cannot see images refuses, naming one that can; a file that is not an image is refused", async () => {
    const v = mount("blind");
    await v.send("/image shot\\ one.png");
    await v.wait("the model blind cannot see images, so none was attached");
    expect(v.frame()).toContain("/model seeing");
    expect(v.frame()).not.toContain("⎘ image");
    v.ui.unmount();

    const w = mount("seeing");
    await w.send("/image notes.txt");
    await w.wait("is not a PNG, JPEG, GIF or WebP image; nothing was attached");
    await w.send("/image missing.png");
    await w.wait("no file at");
    expect(w.frame()).not.toContain("⎘ image");
    w.ui.unmount();
  });
});
