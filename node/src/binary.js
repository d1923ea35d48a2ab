// Finding the pushdouble binary: options.binary, $PUSHDOUBLE_BIN, `pushdouble` on PATH (the
// binary itself, or the Python wheel's console script, which execs the bundled binary in place:
// same process id, so stopping and --exit-with-parent work through it), then the binary of a
// wheel that `python3` imports (installed, its scripts directory not on PATH).
import { execFileSync } from 'node:child_process';
import { accessSync, constants, openSync, readSync, closeSync, realpathSync, statSync } from 'node:fs';
import { delimiter, join, resolve } from 'node:path';

export const ENV_VAR = 'PUSHDOUBLE_BIN';

/** No usable binary in any of the places looked at (the message names them). */
export class BinaryNotFound extends Error {
  constructor(message) { super(message); this.name = 'BinaryNotFound'; }
}

function executable(path) {
  try { return statSync(path).isFile() && (accessSync(path, constants.X_OK), true); } catch { return false; }
}

/** Whether `path` is the Python package's `pushdouble` console script (a script importing pushdouble.binary). */
export function isPythonConsoleScript(path) {
  let fd;
  try {
    fd = openSync(realpathSync(path), 'r');
    const head = Buffer.alloc(4096);
    const n = readSync(fd, head, 0, head.length, 0);
    const text = head.subarray(0, n).toString('latin1');
    return text.startsWith('#!') && text.includes('pushdouble.binary');
  } catch { return false; } finally { if (fd !== undefined) closeSync(fd); }
}

/** The path of the pushdouble executable to run. Throws BinaryNotFound naming every place looked at. */
export function findBinary(explicit) {
  if (explicit) {
    const p = resolve(String(explicit));
    if (executable(p)) return p;
    throw new BinaryNotFound(`pushdouble binary ${p} (given explicitly) does not exist or is not executable`);
  }
  const env = process.env[ENV_VAR];
  if (env) {
    const p = resolve(env);
    if (!executable(p)) throw new BinaryNotFound(`$${ENV_VAR}=${env} does not exist or is not executable`);
    // The wheel's console script execs the binary it finds; with $PUSHDOUBLE_BIN naming the
    // script itself, that is itself: refuse here instead of letting it loop.
    if (isPythonConsoleScript(p)) {
      throw new BinaryNotFound(`$${ENV_VAR}=${env} is the Python package's pushdouble command, not the binary; `
        + `point $${ENV_VAR} at the binary, or unset it to use the pushdouble on PATH`);
    }
    return p;
  }
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (!dir) continue;
    const candidate = join(dir, 'pushdouble');
    if (executable(candidate)) return candidate;
  }
  const fromWheel = wheelBinary();
  if (fromWheel) return fromWheel;
  throw new BinaryNotFound(`no pushdouble binary found: $${ENV_VAR} is not set, no pushdouble is on PATH and python3 `
    + 'imports no pushdouble package (pip install the PushDouble wheel, or build it: swift build, then PUSHDOUBLE_BIN=.build/debug/pushdouble)');
}

/** The binary the Python package's own lookup finds (its bundled copy), or null. */
function wheelBinary() {
  try {
    const out = execFileSync('python3', ['-c', 'from pushdouble.binary import find_binary; print(find_binary())'],
      { encoding: 'utf8', timeout: 10_000, stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    return out && executable(out) && !isPythonConsoleScript(out) ? out : null;
  } catch { return null; }
}
