"""(f) A number or version the docs claim is the one the tool that enforces it uses (issue 61).

- glibc: a sentence that names `CI/glibc-check` or a `GLIBC_` symbol version claims the version
  CI/glibc-check enforces (its `newest=`).
- CI images: a `swift:TAG` image in backticks is one a workflow in .github/workflows runs, and a
  "Swift X.Y" in the same table row or sentence is that image's version.
- CI's inventory: each item of CONTRIBUTING.md's "What `CI/test` runs" list names, in its first
  code span, a command CI/test runs (with the same numbers), in the list's order; and every
  `CI/` script that CI/test runs is named in the list.
- Commit subjects: CONTRIBUTING.md's "Every subject since `COMMIT`" holds for every commit since.
- "N scenarios" next to a folder in backticks is the number of scenario files in that folder.
- A `.trait(…)` a page's manifest shows is written as Examples/ServerQuickStart/Package.swift,
  which CI builds as a chaos build, writes it.
- The README is at most 200 lines; the page it says has every `chaos` command and option is
  the one CI/check-cli-docs checks.
"""
import glob
import os
import re
import subprocess

README_LINES = 200
SUBJECT_LIMIT = 72
TRAIT = re.compile(r'\.trait\(name: "[^"]+"(?:, (?:description: "[^"]*"|condition: \.when\(traits: \[[^\]]*\]\)))?\)')
SENTENCE = re.compile(r"(?<=[.;!?])\s+(?=[A-Z`(])")


def sentences(lines: list[str]):
    """(line number, sentence, is a table row) for each sentence of each paragraph, each table
    cell and each whole table row; a sentence has the number of the line it starts on."""
    paragraph: list[tuple[int, str]] = []

    def flush():
        if not paragraph:
            return []
        text = " ".join(part for _, part in paragraph)
        out, offset = [], 0
        starts = []
        position = 0
        for number, part in paragraph:
            starts.append((position, number))
            position += len(part) + 1
        for sentence in SENTENCE.split(text):
            index = text.find(sentence, offset)
            offset = index + len(sentence)
            number = max(n for start, n in starts if start <= max(index, 0))
            out.append((number, sentence, False))
        return out

    in_fence = False
    for number, line in enumerate(lines, 1):
        stripped = line.strip()
        if stripped.startswith(("```", "~~~")):
            yield from flush()
            paragraph = []
            in_fence = not in_fence
            continue
        if in_fence:
            continue
        if not stripped or stripped.startswith("#") or stripped.startswith("|") or re.match(r"^([-*+]|\d+\.)\s", stripped):
            yield from flush()
            paragraph = []
            if stripped.startswith("|"):
                for cell in stripped.strip("|").split("|"):
                    yield (number, cell, False)
                yield (number, stripped, True)  # the whole row, for claims across its cells
                continue
        if stripped and not stripped.startswith("#"):
            paragraph.append((number, stripped))
    yield from flush()


def read(root: str, path: str) -> str:
    with open(os.path.join(root, path), encoding="utf-8") as handle:
        return handle.read()


class ClaimRules:
    def __init__(self, root: str, repository: str, fail) -> None:
        self.root = root
        self.repository = repository  # the git repository (a self-test's copy has none)
        self.fail = fail
        match = re.search(r"^newest=([\d.]+)$", read(root, "CI/glibc-check"), re.M)
        self.glibc = match.group(1) if match else None
        self.images = set()
        for workflow in glob.glob(os.path.join(root, ".github/workflows/*.yml")):
            self.images.update(re.findall(r"(?:image|container):\s*(swift:[\w.-]+)", read(root, workflow)))

    # --- per document -------------------------------------------------------------------------

    def check(self, document: str, lines: list[str]) -> None:
        self.check_traits(document, lines)
        for number, sentence, row in sentences(lines):
            if row:
                self.check_images(document, number, sentence)
                continue
            self.check_glibc(document, number, sentence)
            if "|" not in sentence:
                self.check_images(document, number, sentence)
            self.check_scenario_count(document, number, sentence)

    def check_glibc(self, document: str, number: int, sentence: str) -> None:
        if "glibc-check" not in sentence and "GLIBC_" not in sentence:
            return
        for version in re.findall(r"(?:glibc |GLIBC_)(\d+\.\d+)", sentence):
            if version != self.glibc:
                self.fail(document, number,
                          f"claims glibc {version} where CI/glibc-check enforces {self.glibc} (its `newest=`): "
                          f"write {self.glibc}, or change CI/glibc-check first")

    def check_images(self, document: str, number: int, sentence: str) -> None:
        for image in re.findall(r"`(swift:[\w.-]+)`", sentence):
            if image not in self.images:
                self.fail(document, number,
                          f"names the CI image `{image}`, which no workflow in .github/workflows runs "
                          f"(they run {', '.join(sorted(self.images)) or 'none'})")
                continue
            tag = image.split(":", 1)[1]
            for version in re.findall(r"\bSwift (\d+\.\d+(?:\.\d+)?)", sentence):
                if not tag.startswith(version):
                    self.fail(document, number, f"says Swift {version} beside the image `{image}`: "
                              "write the image's version")

    def check_scenario_count(self, document: str, number: int, sentence: str) -> None:
        claims = re.findall(r"\b(\d+) scenarios?\b", sentence)
        folders = [f for f in re.findall(r"`([\w./-]+/)`", sentence) if os.path.isdir(os.path.join(self.root, f))]
        if not claims or len(folders) != 1:
            return
        folder = folders[0]
        count = sum(1 for path in glob.glob(os.path.join(self.root, folder, "**/*.yaml"), recursive=True)
                    if re.search(r"^launches:", read(self.root, path), re.M))
        for claim in claims:
            if int(claim) != count:
                self.fail(document, number, f"says {claim} scenarios in `{folder}`, which holds {count}: "
                          f"write {count}, or no number")

    def check_traits(self, document: str, lines: list[str]) -> None:
        """The manifest lines of a chaos build, against the example CI builds with them."""
        example = "Examples/ServerQuickStart/Package.swift"
        built = set(TRAIT.findall(read(self.root, example)))
        for number, line in enumerate(lines, 1):
            for trait in TRAIT.findall(line):
                if trait not in built:
                    self.fail(document, number, f"shows `{trait}`, which {example} (built by CI with --traits "
                              f"Chaos) does not write: copy its line ({', '.join(sorted(built))})")

    # --- README and CONTRIBUTING ----------------------------------------------------------------

    def check_readme(self, lines: list[str]) -> None:
        if len(lines) - (1 if lines and lines[-1] == "" else 0) > README_LINES:
            self.fail("README.md", README_LINES + 1,
                      f"the README has {len(lines) - 1} lines (at most {README_LINES}): move details to an "
                      "article (Docs/ or a DocC catalog) and link it")
        match = re.search(r'^DOC = "([^"]+)"', read(self.root, "CI/check-cli-docs"), re.M)
        for number, line in enumerate(lines, 1):
            if re.search(r"every `chaos`\s*$|every `chaos` command", line) and match:
                window = " ".join(lines[max(0, number - 2) : number + 1])
                if match.group(1) not in window:
                    self.fail("README.md", number,
                              f"says a page has every `chaos` command and option, but CI/check-cli-docs checks "
                              f"{match.group(1)}: link that page")

    def check_inventory(self, lines: list[str]) -> None:
        """CONTRIBUTING's numbered list of what CI/test runs, against CI/test."""
        test = read(self.root, "CI/test")
        calls = [line for line in test.split("\n") if not line.lstrip().startswith(("#", "echo"))]
        code = "\n".join(calls)
        position = -1
        named = set()
        in_list = False
        heading = 1
        for number, line in enumerate(lines, 1):
            if line.startswith("## "):
                in_list = "`CI/test` runs" in line
                heading = number if in_list else heading
                continue
            item = re.match(r"^(\d+)\. (.*)", line)
            if not in_list or not item:
                continue
            spans = re.findall(r"`([^`]+)`", item.group(2))
            named.update(re.findall(r"CI/[\w-]+", item.group(2)))
            if not spans:
                continue
            found = code.find(spans[0], position + 1) if spans[0] in code else -1
            if found < 0:
                self.fail("CONTRIBUTING.md", number,
                          f"step {item.group(1)} names `{spans[0]}`, which CI/test does not run (after step "
                          f"{int(item.group(1)) - 1}'s command): write the command as CI/test runs it")
            else:
                position = found
        for script in sorted(set(re.findall(r"(?:bash|python3)\s+(?:\.\./\.\./)?(CI/[\w-]+)", code)) - named):
            self.fail("CONTRIBUTING.md", heading,
                      f"CI/test runs {script}, which the list under \"What `CI/test` runs\" does not name: add it")

    def check_subjects(self, lines: list[str]) -> None:
        for number, line in enumerate(lines, 1):
            for since in re.findall(r"[Ee]very subject since `([0-9a-f]{7,40})`", line):
                self.check_since(number, since)

    def check_since(self, number: int, since: str) -> None:
        git = ["git", "-c", f"safe.directory={self.repository}", "-C", self.repository]
        if subprocess.run(git + ["rev-parse", "--is-shallow-repository"], capture_output=True,
                          text=True).stdout.strip() == "true":
            print(f"CI/check-docs: a shallow clone; the commit subjects since {since} are not checked")
            return
        result = subprocess.run(git + ["log", "--format=%h %s", f"{since}^..HEAD"], capture_output=True, text=True)
        if result.returncode != 0:
            self.fail("CONTRIBUTING.md", number, f"names commit `{since}`, which `git log` does not know")
            return
        for entry in result.stdout.splitlines():
            commit, _, subject = entry.partition(" ")
            if len(subject) > SUBJECT_LIMIT:
                self.fail("CONTRIBUTING.md", number,
                          f"says every subject since `{since}` is at most {SUBJECT_LIMIT} characters; {commit}'s "
                          f"has {len(subject)}: reword it before it is merged (`git commit --amend` or "
                          "`git rebase -i`)")
