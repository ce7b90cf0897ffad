const USERS: Record<number, string> = { 1: "Ada", 2: "Grace" };

export function getUsr(id: number): string {
  return USERS[id] ?? "unknown";
}
