// Worker thread: checks a password with libpam through bun:ffi. pam_authenticate blocks (PAM modules may
// sleep seconds after a failure), so it runs here instead of on the server thread.
import { dlopen, FFIType, JSCallback, ptr, read, toArrayBuffer, type Pointer } from "bun:ffi";

declare const self: Worker;

const PAM_PROMPT_ECHO_OFF = 1;
const PAM_PROMPT_ECHO_ON = 2;
const PAM_SUCCESS = 0;
/** Codes that mean "these credentials do not log in" (as opposed to a broken PAM stack). */
const DENIALS = new Set([6 /* PERM_DENIED */, 7 /* AUTH_ERR */, 8 /* CRED_INSUFFICIENT */, 10 /* USER_UNKNOWN */, 11 /* MAXTRIES */, 12 /* NEW_AUTHTOK_REQD */, 13 /* ACCT_EXPIRED */]);

const pam = dlopen("libpam.so.0", {
  pam_start: { args: [FFIType.ptr, FFIType.ptr, FFIType.ptr, FFIType.ptr], returns: FFIType.i32 },
  pam_authenticate: { args: [FFIType.ptr, FFIType.i32], returns: FFIType.i32 },
  pam_acct_mgmt: { args: [FFIType.ptr, FFIType.i32], returns: FFIType.i32 },
  pam_end: { args: [FFIType.ptr, FFIType.i32], returns: FFIType.i32 },
});
const libc = dlopen("libc.so.6", {
  calloc: { args: [FFIType.u64, FFIType.u64], returns: FFIType.ptr },
  strdup: { args: [FFIType.ptr], returns: FFIType.ptr },
});

function cstr(text: string): Buffer {
  return Buffer.from(`${text}\0`, "utf8");
}

function check(service: string, user: string, password: string): "success" | "failure" | "error" {
  const userBuf = cstr(user);
  const passBuf = cstr(password);
  // PAM frees the response array and each string, so they are allocated with libc.
  const conversation = new JSCallback(
    (count: number, messages: Pointer, responses: Pointer) => {
      if (count <= 0 || count > 32) return 19; // PAM_CONV_ERR
      const array = libc.symbols.calloc(count, 16);
      if (!array) return 19;
      const out = new DataView(toArrayBuffer(array, 0, count * 16));
      for (let i = 0; i < count; i++) {
        const message = read.ptr(messages, i * 8) as unknown as Pointer;
        const style = read.i32(message, 0);
        const answer = style === PAM_PROMPT_ECHO_OFF ? passBuf : style === PAM_PROMPT_ECHO_ON ? userBuf : null;
        if (answer) out.setBigUint64(i * 16, BigInt(libc.symbols.strdup(ptr(answer)) ?? 0), true);
      }
      new DataView(toArrayBuffer(responses, 0, 8)).setBigUint64(0, BigInt(array), true);
      return PAM_SUCCESS;
    },
    { args: [FFIType.i32, FFIType.ptr, FFIType.ptr, FFIType.ptr], returns: FFIType.i32 },
  );
  const convStruct = new BigUint64Array([BigInt(conversation.ptr ?? 0), 0n]);
  const handleOut = new BigUint64Array(1);
  try {
    const started = pam.symbols.pam_start(ptr(cstr(service)), ptr(userBuf), ptr(convStruct), ptr(handleOut));
    if (started !== PAM_SUCCESS || handleOut[0] === 0n) return "error";
    const handle = Number(handleOut[0]) as unknown as Pointer;
    let status = pam.symbols.pam_authenticate(handle, 0);
    if (status === PAM_SUCCESS) status = pam.symbols.pam_acct_mgmt(handle, 0);
    pam.symbols.pam_end(handle, status);
    if (status === PAM_SUCCESS) return "success";
    return DENIALS.has(status) ? "failure" : "error";
  } finally {
    passBuf.fill(0);
    conversation.close();
  }
}

self.onmessage = (event: MessageEvent<{ id: number; service: string; user: string; password: string }>) => {
  const { id, service, user, password } = event.data;
  let outcome: "success" | "failure" | "error";
  try {
    outcome = check(service, user, password);
  } catch {
    outcome = "error";
  }
  self.postMessage({ id, outcome });
};
