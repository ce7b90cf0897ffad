// startStrictFake: a provider fake as strict as one real vendor, chosen by catalog provider name.
//
// How to use it (the matrix test of issue 33 and any test that wants the vendor's strictness):
//
//   const fake = startStrictFake("deepseek", [
//     { kind: "turn", turn: { reasoning: { text: "plan" }, tool_calls: [{ id: "call_1", name: "read", arguments: '{"path":"a.txt"}' }] } },
//     { kind: "turn", turn: { text: "done" } },
//   ]);
//   // point the provider at it: config `url: fake.base` (or DEEPSEEK_BASE_URL=<fake.base>), any key
//   // ... run `agent exec` ...
//   expect(fake.violations).toEqual([]); // each entry: "<rule id>: <the vendor's message>"
//   await fake.stop();
//
// `vendor` is a catalog provider name or alias (src/providers/catalog.ts; `strictVendorNames()` lists
// them) or `openai-chat` (OpenAI through Chat Completions). The dialect comes from the catalog entry's
// protocol. A request that breaks one of the vendor's rules (strict/*-rules.ts, each citing its source)
// gets the vendor's status and error body and is recorded in `violations`; it does not consume a step.
import { type FakeStep, type ProviderFake, type ProviderFakeOptions, startProviderFake } from "./provider-fake.ts";
import { strictProfile, strictVendorNames } from "./strict/vendors.ts";
import type { VendorProfile } from "./strict/types.ts";

export interface StrictFake extends ProviderFake {
  /** The vendor's rules and error shape this fake applies. */
  profile: VendorProfile;
}

export function startStrictFake(vendor: string, script: FakeStep[], options: Omit<ProviderFakeOptions, "vendor"> = {}): StrictFake {
  const profile = strictProfile(vendor);
  return { ...startProviderFake(profile.dialect, script, { ...options, vendor }), profile };
}

export { strictProfile, strictVendorNames };
