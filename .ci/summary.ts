// Prints "N passed, N failed" summed over the JUnit reports given (`bun test --reporter=junit`; .ci/run
// passes the whole suite's and the PostgreSQL gateway run's).
let passed = 0;
let failed = 0;
for (const file of process.argv.slice(2)) {
  const xml = await Bun.file(file).text();
  const root = /<testsuites\b[^>]*>/.exec(xml)?.[0] ?? "";
  const attr = (name: string) => Number(new RegExp(`\\b${name}="(\\d+)"`).exec(root)?.[1] ?? 0);
  const failures = attr("failures") + attr("errors");
  failed += failures;
  passed += attr("tests") - failures - attr("skipped");
}
console.log(`${passed} passed, ${failed} failed`);
