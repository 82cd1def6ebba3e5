"""Bash completion as bash does it: source a tool's installed completion
script in a real bash, set COMP_LINE/COMP_WORDS for a command line with the
cursor at its end, call the completion function, return COMPREPLY.  One
copy for every tool's completion test (issue 30, 4)."""
import shutil
import subprocess

from vftest import BUILD, SOURCE, fail

BC = "/usr/share/bash-completion/bash_completion"


def complete(tool, line, func="_vf_complete"):
    """COMPREPLY for the command line `line` of `tool` (cursor at the end)."""
    bash = shutil.which("bash")
    if not bash:
        fail("bash not found")
    script = f"""
[ -r {BC} ] && . {BC}
. {SOURCE}/completions/{tool}
export PATH={BUILD}/cmd/{tool}:$PATH
COMP_LINE={line!r}
COMP_POINT=${{#COMP_LINE}}
eval "COMP_WORDS=($COMP_LINE)"
[[ "$COMP_LINE" == *" " ]] && COMP_WORDS+=("")
COMP_CWORD=$(( ${{#COMP_WORDS[@]}} - 1 ))
{func}
printf '%s\\n' "${{COMPREPLY[@]}}"
"""
    r = subprocess.run([bash, "-c", script], capture_output=True, text=True, timeout=30)
    if r.returncode != 0:
        fail(f"bash failed: {r.stderr}")
    return [x for x in r.stdout.splitlines() if x]
