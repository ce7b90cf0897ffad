// A process that installs the CLI's crash handlers, then fails the way argv[2] says (test helper).
import { installCrashHandlers } from "../../src/platform/crash/install.ts";

const [how, ...argv] = process.argv.slice(2);
installCrashHandlers(argv, async () => (await import("../../src/cli/commands.ts")).rootCommand);
const secret = process.env.MY_SERVICE_TOKEN ?? "";
if (how === "throw") setTimeout(() => { throw new TypeError(`cannot read the plan with ${secret} and Bearer abcdefgh12345678`); }, 1);
else void Promise.reject(new RangeError("rejected for no reason"));
