import { greet } from "./greet.ts";
import { getUsr } from "./users.ts";

console.log(greet(1));
console.log(getUsr(2));
