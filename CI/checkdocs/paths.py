"""(e) Every repository path a document names exists (issue 61).

A path is a code span's word, or a Markdown link's target, that starts with an entry of the
repository's root (`Sources/…`, `CI/test`) or of the document's own folder, or that has a
folder and a file extension. It is relative to the repository root or to the document. Words
with placeholders (`<folder>`, `*`, `…`), build products (`.build/`), absolute paths and URLs
are not paths of the repository. In code blocks only words that start with a root entry count:
code is full of run-time paths (`data/state.json`).
"""
import os
import re
import subprocess

CODE_SPAN = re.compile(r"(?<!`)`([^`\n]+)`(?!`)")
LINK = re.compile(r"\]\(([^()\s]+)(?:\s+\"[^\"]*\")?\)")
FENCE = re.compile(r"^\s*(```|~~~)")
EXTENSIONS = (".md", ".swift", ".yaml", ".yml", ".c", ".h", ".py", ".json", ".jsonl", ".sh", ".txt", ".docc")
NOT_A_PATH = set("<>*…{}$?[]|\"'=,()@\\")


def tracked_files(root: str) -> list[str]:
    """The repository's files (working tree), for the did-you-mean hint."""
    result = subprocess.run(["git", "-c", f"safe.directory={root}", "-C", root, "ls-files"],
                            capture_output=True, text=True)
    return result.stdout.split() if result.returncode == 0 else []


class PathRule:
    def __init__(self, root: str, fail) -> None:
        self.root = root
        self.fail = fail
        self.top = set(os.listdir(root))
        self.files = tracked_files(root)

    def resolve(self, word: str, document: str, in_code: bool) -> str | None:
        """The path `word` names, relative to the root, or None when it names no repository path."""
        word = word.strip().rstrip(".,;:")
        if word.startswith("./"):
            word = word[2:]
        word = re.sub(r":\d+(:\d+)?$", "", word).split("#")[0]
        if not word or word.startswith(("/", "~", "-", "http:", "https:", "file:", "doc:")):
            return None
        if any(char in NOT_A_PATH for char in word) or ".build" in word.split("/"):
            return None
        first = word.split("/")[0]
        folder = os.path.dirname(document)
        if first in self.top and ("/" in word or word.endswith(EXTENSIONS)):
            return word
        if in_code:
            return None
        if folder and (first == ".." or os.path.exists(os.path.join(self.root, folder, first))):
            return os.path.normpath(os.path.join(folder, word))
        if "/" in word and word.endswith(EXTENSIONS) and first not in (".", ".."):
            return word
        return None

    def exists(self, path: str, document: str) -> bool:
        """At the root, or (a word like `counting/`) in the document's folder."""
        folder = os.path.dirname(document)
        return os.path.exists(os.path.join(self.root, path)) or (
            bool(folder) and os.path.exists(os.path.join(self.root, folder, path)))

    def hint(self, path: str) -> str:
        name = os.path.basename(path.rstrip("/"))
        matches = [f for f in self.files if os.path.basename(f) == name or f.endswith("/" + name + "/")]
        if not matches and path.endswith("/"):
            matches = sorted({f.split(name + "/")[0] + name + "/" for f in self.files if "/" + name + "/" in "/" + f})
        if matches:
            return f" (did you mean `{'`, `'.join(matches[:3])}`?)"
        return ""

    def report(self, document: str, number: int, path: str, how: str) -> None:
        advice = ("fix the link" if how.startswith("a link") else
                  "fix the path, or drop the backticks if it is not this repository's")
        self.fail(document, number,
                  f"names `{path}` ({how}), which does not exist{self.hint(path)}: {advice} (a path is "
                  "relative to the repository root or to the document)")

    def check(self, document: str, lines: list[str]) -> int:
        """Checks every path of `document`; returns how many it checked."""
        checked = 0
        in_fence = False
        for number, line in enumerate(lines, 1):
            if FENCE.match(line):
                in_fence = not in_fence
                continue
            words = line.split() if in_fence else [w for span in CODE_SPAN.findall(line) for w in span.split()]
            for word in words:
                path = self.resolve(word, document, in_fence)
                if path is None:
                    continue
                checked += 1
                if not self.exists(path, document):
                    self.report(document, number, path, "in a code block" if in_fence else "in a code span")
            if in_fence:
                continue
            for target in LINK.findall(line):
                if re.match(r"^[a-z]+:", target) or target.startswith("#"):
                    continue
                target = target.split("#")[0]
                path = os.path.normpath(os.path.join(os.path.dirname(document), target))
                checked += 1
                if not os.path.exists(os.path.join(self.root, path)):
                    self.report(document, number, target, "a link, relative to the document")
        return checked
