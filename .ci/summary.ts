// Prints "N passed, N failed" from a JUnit report written by `bun test --reporter=junit`.
const xml = await Bun.file(process.argv[2]!).text();
const root = /<testsuites\b[^>]*>/.exec(xml)?.[0] ?? "";
const attr = (name: string) => Number(new RegExp(`\\b${name}="(\\d+)"`).exec(root)?.[1] ?? 0);
const failed = attr("failures") + attr("errors");
const passed = attr("tests") - failed - attr("skipped");
console.log(`${passed} passed, ${failed} failed`);
