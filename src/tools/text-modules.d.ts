// Tool descriptions are `.txt` files beside their code, imported with `with { type: "text" }`.
declare module "*.txt" {
  const text: string;
  export default text;
}
