export function slugify(text: string): string {
  throw new Error("not implemented");
}
