// Diagnostic artifacts for the feedback form: GET /feedback/artifacts captures an immutable catalog
// (the journal as JSON lines, the session metadata, the daemon log; all scrubbed), each entry with a
// signed version token; GET /feedback/artifacts/{id} serves that catalog-time content as a snapshot
// (bounded prefix), in full, or zstd-compressed with X-Agent-Raw-Source-Bytes.
import { existsSync, readFileSync } from "node:fs";
import { crashReportArtifacts } from "../platform/crash/artifacts.ts";
import { ProtocolError } from "../protocol/errors.ts";
import { TokenError, type TokenSigner } from "../protocol/tokens.ts";
import { newId } from "../util/ids.ts";
import { redactText } from "../util/redact.ts";
import type { DaemonLimits } from "./limits.ts";
import type { SessionStore } from "./store/index.ts";

interface Artifact {
  id: string;
  title: string;
  mediaType: string;
  data: Buffer;
}

/** Catalogs kept: a token from an older catalog than these is stale. */
const CATALOGS_KEPT = 2;

export const FEEDBACK_MODES = ["snapshot", "full", "zstd"] as const;
export type FeedbackMode = (typeof FEEDBACK_MODES)[number];

export class FeedbackArtifacts {
  private catalogs = new Map<string, Map<string, Artifact>>();

  constructor(
    private readonly store: SessionStore,
    private readonly signer: TokenSigner,
    private readonly limits: DaemonLimits,
    private readonly logFile?: string,
    private readonly secrets: () => readonly string[] = () => [],
    /** Where this machine's crash reports are (src/platform/crash); the newest are offered too. */
    private readonly crashDir?: string,
  ) {}

  catalog(now: number) {
    const id = newId("fbc", now);
    const artifacts = new Map<string, Artifact>();
    for (const a of this.collect()) artifacts.set(a.id, a);
    this.catalogs.set(id, artifacts);
    while (this.catalogs.size > CATALOGS_KEPT) this.catalogs.delete(this.catalogs.keys().next().value!);
    return {
      version: 1 as const,
      artifacts: [...artifacts.values()].map((a) => ({
        id: a.id,
        title: a.title,
        media_type: a.mediaType,
        size: a.data.length,
        version: this.signer.sign("art", { c: id, a: a.id }),
      })),
    };
  }

  /** One artifact as of its catalog. Query problems are 400, a token of an older catalog 409, an oversized zstd source 413. */
  read(artifactId: string, version: string | undefined, mode: string | undefined): Response {
    if (version === undefined || version === "") throw new ProtocolError("invalid_query", undefined, "version is required: pass the version token from GET /feedback/artifacts");
    const m = mode ?? "snapshot";
    if (!(FEEDBACK_MODES as readonly string[]).includes(m)) throw new ProtocolError("invalid_query", undefined, `mode '${m}' is not one of snapshot, full, zstd`);
    let token;
    try {
      token = this.signer.verify("art", version);
    } catch (error) {
      if (error instanceof TokenError && error.problem === "wrong_epoch") throw new ProtocolError("artifact_version_stale", undefined, "the version token is from an earlier daemon epoch; fetch the catalog again");
      throw new ProtocolError("invalid_query", undefined, "version is not a token from GET /feedback/artifacts");
    }
    if (token.a !== artifactId) throw new ProtocolError("invalid_query", undefined, `the version token belongs to artifact '${token.a}', not '${artifactId}'`);
    const artifact = this.catalogs.get(token.c!)?.get(artifactId);
    if (!artifact) throw new ProtocolError("artifact_version_stale", undefined, "the artifact catalog this token came from was replaced; fetch the catalog again");
    const headers: Record<string, string> = { "Cache-Control": "no-store" };
    if (m === "zstd") {
      if (artifact.data.length > this.limits.feedbackZstdSourceBytes) {
        throw new ProtocolError("artifact_too_large", undefined, `the artifact is ${artifact.data.length} bytes, over the ${this.limits.feedbackZstdSourceBytes}-byte bound of compressed retrieval`);
      }
      const packed = Bun.zstdCompressSync(artifact.data);
      return new Response(packed as Uint8Array<ArrayBuffer>, { headers: { ...headers, "Content-Type": "application/zstd", "X-Agent-Raw-Source-Bytes": String(artifact.data.length) } });
    }
    const truncated = m === "snapshot" && artifact.data.length > this.limits.feedbackSnapshotBytes;
    const data = truncated ? artifact.data.subarray(0, this.limits.feedbackSnapshotBytes) : artifact.data;
    return new Response(data as Uint8Array<ArrayBuffer>, { headers: { ...headers, "Content-Type": artifact.mediaType, "X-Agent-Raw-Source-Bytes": String(artifact.data.length), "X-Agent-Truncated": String(truncated) } });
  }

  private collect(): Artifact[] {
    const secrets = this.secrets();
    const scrub = (text: string) => Buffer.from(redactText(text, secrets));
    let journal = "";
    for (const r of this.store.journal.all()) journal += `{"seq":${r.seq},"at":${r.at},"record":${r.body}}\n`;
    const out: Artifact[] = [
      { id: "session-journal", title: "Session record journal (JSON lines)", mediaType: "application/x-ndjson", data: scrub(journal) },
      { id: "session-meta", title: "Session metadata", mediaType: "application/json", data: scrub(JSON.stringify(this.store.meta(), null, 2)) },
    ];
    if (this.logFile && existsSync(this.logFile)) {
      out.push({ id: "daemon-log", title: "Daemon log", mediaType: "text/plain; charset=utf-8", data: scrub(readFileSync(this.logFile, "utf8")) });
    }
    if (this.crashDir) for (const a of crashReportArtifacts(this.crashDir)) out.push({ ...a, data: scrub(a.text) });
    return out;
  }
}
