"""The hpcsim-cuda-bench CSV that the suite's Python measurements write (`hpcsim validate --measured` reads it):
'# key: value' header lines, the column line, then benchmark,params,metric,value,unit rows."""
import datetime
import sys


def write_suite_csv(out, header_fields, rows):
    """Writes to `out` ("-": standard output) the format line, the date, `header_fields` ((key, value) pairs)
    and `rows` ((benchmark, params, metric, value, unit) tuples)."""
    date = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    lines = ["# hpcsim-cuda-bench 1", f"# date: {date}"] + [f"# {key}: {value}" for key, value in header_fields]
    lines.append("benchmark,params,metric,value,unit")
    lines += [f"{benchmark},{params},{metric},{value:.6g},{unit}" for benchmark, params, metric, value, unit in rows]
    text = "\n".join(lines) + "\n"
    if out == "-":
        sys.stdout.write(text)
    else:
        with open(out, "w") as f:
            f.write(text)
