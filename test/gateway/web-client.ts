// A minimal browser-like client for web UI tests: a cookie jar, same-origin headers, form posts.
export class WebClient {
  readonly jar = new Map<string, string>();
  constructor(readonly base: string, private readonly extraHeaders: Record<string, string> = {}) {}

  private cookieHeader(): string {
    return [...this.jar].map(([k, v]) => `${k}=${v}`).join("; ");
  }

  private store(res: Response): void {
    for (const c of res.headers.getSetCookie()) {
      const [pair] = c.split(";");
      const eq = pair!.indexOf("=");
      const name = pair!.slice(0, eq);
      const value = pair!.slice(eq + 1);
      if (/Max-Age=0/.test(c)) this.jar.delete(name);
      else this.jar.set(name, value);
    }
  }

  async get(path: string): Promise<Response> {
    const res = await fetch(`${this.base}${path}`, { redirect: "manual", headers: { Cookie: this.cookieHeader(), "Sec-Fetch-Site": "same-origin", ...this.extraHeaders } });
    this.store(res);
    return res;
  }

  async post(path: string, form: Record<string, string>, headers: Record<string, string> = {}): Promise<Response> {
    const res = await fetch(`${this.base}${path}`, {
      method: "POST",
      redirect: "manual",
      body: new URLSearchParams(form).toString(),
      // A header given as "" is left out (to imitate clients that do not send it).
      headers: Object.fromEntries(
        Object.entries({ "Content-Type": "application/x-www-form-urlencoded", Cookie: this.cookieHeader(), Origin: this.base, "Sec-Fetch-Site": "same-origin", ...this.extraHeaders, ...headers }).filter(([, v]) => v !== ""),
      ),
    });
    this.store(res);
    return res;
  }

  /** The CSRF token embedded in a page's forms. */
  static csrf(html: string): string {
    const m = /name="csrf" value="([^"]+)"/.exec(html);
    if (!m) throw new Error("no CSRF field on the page");
    return m[1]!;
  }

  async login(username: string, password: string): Promise<Response> {
    const page = await (await this.get("/login")).text();
    return this.post("/login", { csrf: WebClient.csrf(page), username, password });
  }

  async dashboard(): Promise<{ status: number; html: string; csrf: string }> {
    const res = await this.get("/");
    const html = await res.text();
    return { status: res.status, html, csrf: res.status === 200 ? WebClient.csrf(html) : "" };
  }
}
