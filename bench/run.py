"""Run every benchmark in bench/ (each a script with a main()), one after the other."""

import runpy
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
SKIP = {"run.py", "synthetic.py", "__init__.py"}

if __name__ == "__main__":
    for script in sorted(HERE.glob("*.py")):
        if script.name not in SKIP and (len(sys.argv) < 2 or script.stem in sys.argv[1:]):
            print(f"== {script.name}", flush=True)
            runpy.run_path(str(script), run_name="__main__")
