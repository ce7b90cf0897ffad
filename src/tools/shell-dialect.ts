// The lines written to a persistent bash or PowerShell process for one step: source a script file in the
// shell itself (so `cd` and exports stay), send its output to a file, save a state snapshot (working
// directory and environment, used to restore a restarted shell), and print a marker line with the status.

export interface StepPaths {
  /** The script to source (the user's command, or the init script). */
  script: string;
  /** Where its stdout and stderr go, interleaved as a terminal would show them. */
  out: string;
  /** Where the state snapshot is written after the step. */
  state: string;
}

export interface ShellDialect {
  /** `bash` or `powershell`, as in `agent_behavior.shell.command`. */
  name: "bash" | "powershell";
  /** The shell's command line; it reads the step lines from stdin. */
  argv: string[];
  /** Extension of the files holding user commands. */
  scriptExtension: string;
  /** One line: run a step and end with `<marker> <status>` on stdout. */
  step(paths: StepPaths, marker: string): string;
  /** One line: apply a snapshot written by `step` (cwd and environment) to a fresh shell. */
  restore(state: string): string;
}

const bashQuote = (s: string) => `'${s.replaceAll("'", `'\\''`)}'`;
const psQuote = (s: string) => `'${s.replaceAll("'", "''")}'`;

export const bashDialect: ShellDialect = {
  name: "bash",
  argv: ["bash", "--noprofile", "--norc"],
  scriptExtension: ".sh",
  step({ script, out, state }, marker) {
    // The group's redirections apply to the sourced script only; `</dev/null` keeps commands off the
    // pipe this shell reads its steps from. The snapshot is a script: `cd` back, then `declare -x` lines.
    return (
      `{ . ${bashQuote(script)}; } </dev/null >${bashQuote(out)} 2>&1; __agent_rc=$?; ` +
      `{ printf 'cd -- %q\\n' "$PWD"; export -p; } >${bashQuote(state)} 2>/dev/null; ` +
      `printf '\\n%s %s\\n' ${bashQuote(marker)} "$__agent_rc"\n`
    );
  },
  restore(state) {
    return `. ${bashQuote(state)} >/dev/null 2>&1\n`;
  },
};

/** PowerShell 7 (`pwsh`) reading statements from stdin; `powershell` is the Windows PowerShell fallback. */
export function powershellDialect(executable: string): ShellDialect {
  return {
    name: "powershell",
    argv: [executable, "-NoLogo", "-NoProfile", "-NonInteractive", "-Command", "-"],
    scriptExtension: ".ps1",
    step({ script, out, state }, marker) {
      // A native command's exit code is $LASTEXITCODE; a failed cmdlet or a thrown error counts as 1.
      return (
        `$global:LASTEXITCODE = 0; $__agent_ok = $true; ` +
        `try { . ${psQuote(script)} *> ${psQuote(out)}; $__agent_ok = $? } ` +
        `catch { $_ | Out-File -Append -LiteralPath ${psQuote(out)}; $__agent_ok = $false }; ` +
        `$__agent_rc = if ($global:LASTEXITCODE) { $global:LASTEXITCODE } elseif ($__agent_ok) { 0 } else { 1 }; ` +
        `@{ cwd = (Get-Location).Path; env = [System.Environment]::GetEnvironmentVariables() } | ` +
        `ConvertTo-Json -Compress | Set-Content -LiteralPath ${psQuote(state)}; ` +
        `Write-Output ('${marker} ' + $__agent_rc)\n`
      );
    },
    restore(state) {
      return (
        `$__agent_s = Get-Content -Raw -LiteralPath ${psQuote(state)} | ConvertFrom-Json; ` +
        `Set-Location -LiteralPath $__agent_s.cwd; ` +
        `foreach ($p in $__agent_s.env.PSObject.Properties) { Set-Item -LiteralPath ("env:" + $p.Name) -Value $p.Value }\n`
      );
    },
  };
}

/** The dialect for `agent_behavior.shell.command`, or why it cannot run here. */
export function resolveDialect(command: "bash" | "powershell", which: (bin: string) => string | null = Bun.which): ShellDialect | { error: string } {
  if (command === "bash") {
    return which("bash") ? bashDialect : { error: "agent_behavior.shell.command is `bash`, but no `bash` is on PATH." };
  }
  for (const bin of ["pwsh", "powershell"]) {
    if (which(bin)) return powershellDialect(bin);
  }
  return { error: "agent_behavior.shell.command is `powershell`, but neither `pwsh` nor `powershell` is on PATH. Install PowerShell 7 or set the command to `bash`." };
}
