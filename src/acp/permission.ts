// Our questions (interrogatives) as ACP permission requests. A permission ask offers allow once, always
// allow (this session, or this project's rule file) and reject; goal and extension approvals offer
// approve and reject. The option the editor picks maps back onto the daemon's answer.
import type { PermissionOption, RequestPermissionOutcome } from "@agentclientprotocol/sdk";
import type { Static } from "@sinclair/typebox";
import type { InterrogativeAnswerSchema } from "../protocol/conversation-schema.ts";
import type { SyncRecordBody } from "../protocol/sync-record.ts";

type InterrogativeAnswer = Static<typeof InterrogativeAnswerSchema>;
export type Interrogative = Extract<SyncRecordBody, { type: "interrogative_opened" }>["interrogative"];

const PERMISSION_OPTIONS: PermissionOption[] = [
  { optionId: "allow_once", name: "Allow once", kind: "allow_once" },
  { optionId: "allow_always_session", name: "Always allow in this session", kind: "allow_always" },
  { optionId: "allow_always_project", name: "Always allow in this project", kind: "allow_always" },
  { optionId: "deny", name: "Reject", kind: "reject_once" },
];

const APPROVAL_OPTIONS: PermissionOption[] = [
  { optionId: "approve", name: "Approve", kind: "allow_once" },
  { optionId: "reject", name: "Reject", kind: "reject_once" },
];

// An editor has no form for a tool server's request for input (elicitation): it can only decline it.
const FORM_OPTIONS: PermissionOption[] = [{ optionId: "decline", name: "Decline (the form cannot be shown here)", kind: "reject_once" }];

export function permissionOptions(question: Interrogative): PermissionOption[] {
  return question.kind === "permission" ? PERMISSION_OPTIONS : question.kind === "elicitation" ? FORM_OPTIONS : APPROVAL_OPTIONS;
}

/** The title of a question that is not about a tool call. */
export function questionTitle(question: Interrogative): string {
  if (question.kind === "goal_approval") return `Work on this goal until it is done? ${question.goal}`;
  if (question.kind === "extension_approval") return `Load extension ${question.name} ${question.version} (${question.capabilities.join(", ") || "no capabilities"})? ${question.reason}`;
  if (question.kind === "elicitation") return `Tool server ${question.server} asks for input: ${question.message}`;
  return `${question.tool}: ${question.reason}`;
}

/** The daemon's answer for the editor's outcome; null: no answer (the request was cancelled). */
export function answerFor(outcome: RequestPermissionOutcome): InterrogativeAnswer | null {
  if (outcome.outcome !== "selected") return null;
  switch (outcome.optionId) {
    case "allow_once":
      return { decision: "allow_once" };
    case "allow_always_session":
      return { decision: "allow_always", scope: "session" };
    case "allow_always_project":
      return { decision: "allow_always", scope: "project" };
    case "deny":
      return { decision: "deny" };
    case "approve":
      return { decision: "approve" };
    case "reject":
      return { decision: "reject" };
    case "decline":
      return { decision: "decline" };
    default:
      return null;
  }
}
