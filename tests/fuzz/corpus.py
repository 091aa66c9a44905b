"""The corpus of known hostile inputs (tests/fuzz/corpus/): cases.txt lists one case a line,
    NAME [expect=CODE] [timeout=SECONDS] [spec=KIND:FILE] [known=WHY] :: hpcsim ARGUMENTS
where an argument @FILE is that corpus file, copied into the case's folder; spec=KIND:FILE installs FILE as
the spec fuzz-KIND of the config root (e.g. spec=gpus:x.yaml, then --gpu fuzz-gpus); %{FILE} in an argument
is replaced by that corpus file's text (a long flag value); {d} is the case's
(otherwise empty) folder; known=WHY marks a case
that still fails for a reason filed elsewhere (the harness reports it without failing). Lines starting with #
are comments."""
import os
import re
import shlex


def load_corpus(folder, case_type):
    out = []
    with open(os.path.join(folder, "cases.txt")) as f:
        for line_number, line in enumerate(f, 1):
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            head, _, command = line.partition(" :: ")
            words = head.split()
            name, options = words[0], dict(w.split("=", 1) for w in words[1:] if "=" in w and not w.startswith("known="))
            known = re.search(r"known=(.*)$", head)
            files, argv = {}, []
            for arg in shlex.split(command):
                # %{FILE}: the text of that corpus file (its last newline dropped), for a long flag value.
                arg = re.sub(r"%\{([\w.+-]+)\}", lambda m: open(os.path.join(folder, m.group(1)), encoding="utf-8").read().rstrip("\n"),
                             arg)
                for ref in re.findall(r"@([\w.+-]+)", arg):
                    with open(os.path.join(folder, ref), encoding="utf-8", errors="surrogateescape") as g:
                        files[ref] = g.read()
                argv.append(re.sub(r"@([\w.+-]+)", r"{d}/\1", arg))
            spec = None
            if "spec" in options:
                kind, file = options["spec"].split(":")
                with open(os.path.join(folder, file), encoding="utf-8") as g:
                    spec = (kind, f"fuzz-{kind}", g.read())
            case = case_type("corpus", argv, files, spec)
            case.number = f"{line_number}-{name}"
            case.name = name
            case.expect_exit = int(options["expect"]) if "expect" in options else None
            case.timeout = float(options["timeout"]) if "timeout" in options else None
            case.known_open = known.group(1).strip() if known else None
            out.append(case)
    return out
