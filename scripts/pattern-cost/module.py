import os
import json
from pathlib import Path
from typing import Optional

CONFIG = Path(__file__).parent / "config.json"


class Store:
    def __init__(self, path: Optional[Path] = None):
        self.path = path or CONFIG
        self.items = {}

    def load(self):
        with open(self.path) as f:
            self.items = json.load(f)
        return self.items

    def save(self):
        tmp = self.path.with_suffix(".tmp")
        tmp.write_text(json.dumps(self.items, indent=2))
        os.replace(tmp, self.path)


def main():
    s = Store()
    print(len(s.load()))


if __name__ == "__main__":
    main()
