#!/usr/bin/env python3
"""Executes one teaching notebook headless (nbclient, an ipykernel of this interpreter) in
examples/notebooks/ and fails on any cell's error or when it draws no figure. Usage:
run_notebooks.py SOURCE_DIR NOTEBOOK.ipynb"""
import json
import os
import sys
import tempfile

source, path = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])

with tempfile.TemporaryDirectory() as tmp:
    # A kernel spec that runs this interpreter (the one CMake found, which has hpcsim's Python packages),
    # whatever `python3` is first on PATH; JUPYTER_PATH's specs come before the system's.
    spec = os.path.join(tmp, "kernels", "python3")
    os.makedirs(spec)
    with open(os.path.join(spec, "kernel.json"), "w", encoding="utf-8") as f:
        json.dump({"argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
                   "display_name": "Python 3", "language": "python"}, f)
    os.environ["JUPYTER_PATH"] = tmp + os.pathsep + os.environ.get("JUPYTER_PATH", "")
    os.environ["PYDEVD_DISABLE_FILE_VALIDATION"] = "1"  # ipykernel's debugger: no frozen-modules notice
    os.environ.pop("MPLBACKEND", None)  # the kernel draws inline (image/png outputs)

    import nbformat
    from nbclient import NotebookClient
    from nbclient.exceptions import CellExecutionError

    nb = nbformat.read(path, as_version=4)
    client = NotebookClient(nb, timeout=120, kernel_name="python3",
                            resources={"metadata": {"path": os.path.dirname(path)}})
    try:
        client.execute()
    except CellExecutionError as e:
        print(f"FAIL: {os.path.relpath(path, source)}: {e}")
        sys.exit(1)

figures = sum(1 for cell in nb.cells if cell.cell_type == "code" for out in cell.get("outputs", [])
              if "image/png" in out.get("data", {}))
if figures == 0:
    print(f"FAIL: {os.path.relpath(path, source)} drew no figure")
    sys.exit(1)
print(f"ok: {os.path.relpath(path, source)}: {len(nb.cells)} cells, {figures} figure(s)")
