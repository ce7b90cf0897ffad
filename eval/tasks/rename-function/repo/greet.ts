import { getUsr } from "./users.ts";

export function greet(id: number): string {
  return `Hello, ${getUsr(id)}!`;
}
