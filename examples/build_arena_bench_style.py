#!/usr/bin/env python3
"""Build arena_style_battles.csv(.gz) from the public repository lmarena/arena-hard-auto.

IMPORTANT - what this data is (and is not)
------------------------------------------
The Arena-Hard *pairwise* judgment files of lmarena/arena-hard-auto
(data/arena-hard-v0.1/model_judgment/gpt-4-1106-preview/*.jsonl and
data/arena-hard-v2.0/model_judgment/*/*.jsonl) could not be read here: their git
blobs are absent from every mirror available to this build (the large files of the
snapshot were not copied).  The only judgment data whose blobs are present is the
predecessor benchmark "arena-bench-v1" (history of the original lm-sys/arena-bench
repository, kept in lmarena/arena-hard-auto under refs/pull/1/head, last commit
4a705dd6963f777aba2ae79259e3013934e6e012, 2023-12-14).  That benchmark is
*single-answer, reference-guided grading*: a GPT-4 judge (config
data/arena-bench-v1_config.yaml: judge_model: gpt-4, reference answers by gpt-4)
gives each model's answer to each of 300 questions a rating 1-10 ("Rating: [[n]]").

The battles below are therefore PSEUDO-BATTLES derived from those ratings: for each
question and each pair of selected models, the model with the higher GPT-4 rating
wins, equal ratings are a tie.  No answer was ever shown to a judge next to another
answer, so "model_a"/"model_b" is an order assigned here by a seeded coin flip, not a
display position, and there is no original pairwise verdict label; the two ratings
are kept in grade_a / grade_b instead.

Style features follow arena-hard-auto's own style-control code
(add_markdown_info.py at commit 561534a6a768e825a92af7e08384d0fe2111cb79, 2024-08-31,
"add style, length, and markdown control"):
  * markdown counts are taken on the answer with ```...``` code blocks removed
    (pattern "```([^`]*)```", each matched block text replaced by "");
  * header = sum of h1..h6 counts, regexes r"^#{k}\\s" (re.MULTILINE), k = 1..6;
  * list   = ordered r"^\\s*\\d+\\.\\s" + unordered r"^\\s*[-*+]\\s" (re.MULTILINE);
  * bold   = r"\\*\\*[^*\\n]+\\*\\*" + r"__[^_\\n]+__";
  * length: the repository uses tiktoken's gpt-3.5-turbo encoder (cl100k_base) on the
    full answer text (code included).  tiktoken cannot load that encoding offline
    here, so len_* is the number of whitespace-separated words, len(text.split()),
    of the same full answer text.
The answer text is the first turn of the model_answer file (choices[0].turns[0], as the
repository's code takes it); the build asserts that it is identical to the answer text
embedded in the judge prompt (user_prompt), i.e. to what the judge actually rated.

Usage:  python3 examples/build_arena_bench_style.py [--mirror DIR] [--out DIR]
Reads the repository only through `git -C DIR show COMMIT:PATH`.
"""

import argparse
import csv
import gzip
import io
import itertools
import json
import math
import os
import random
import re
import subprocess
import sys
from collections import Counter

REPO = "lmarena/arena-hard-auto"
COMMIT = "4a705dd6963f777aba2ae79259e3013934e6e012"  # refs/pull/1/head, "reproduce", 2023-12-14
STYLE_CODE_COMMIT = (
    "561534a6a768e825a92af7e08384d0fe2111cb79"  # add_markdown_info.py (regexes reproduced below)
)
BENCH = "data/arena-bench-v1"
SEED = 20231214  # coin flip that decides which model of a pair is called model_a

# display name -> (judgment file, answer file).  Chosen for a spread of mean GPT-4 rating
# and because, for each of them, the answer file text equals the text the judge rated.
MODELS = [
    (
        "gpt-4-1106-preview",
        "model_judgment/gpt-4-turbo.jsonl",
        "model_answer/gpt-4-1106-preview.jsonl",
    ),
    ("gpt-4-0314", "model_judgment/gpt-4-0314.jsonl", "model_answer/gpt-4-0314.jsonl"),
    (
        "Mixtral-8x7B-Instruct-v0.1",
        "model_judgment/Mixtral-8x7B-Instruct-v0.1.jsonl",
        "model_answer/Mixtral-8x7B-Instruct-v0.1.jsonl",
    ),
    ("claude-2.1", "model_judgment/claude-2.1.jsonl", "model_answer/claude-2.1.jsonl"),
    (
        "Starling-LM-7B-alpha",
        "model_judgment/Starling-LM-7B-alpha.jsonl",
        "model_answer/Starling-LM-7B-alpha.jsonl",
    ),
    (
        "Mistral-7B-Instruct-v0.1",
        "model_judgment/Mistral-7B-Instruct-v0.1.jsonl",
        "model_answer/Mistral-7B-Instruct-v0.1.jsonl",
    ),
    (
        "palm-2-chat-bison-001",
        "model_judgment/palm-2-chat-bison-001.jsonl",
        "model_answer/palm-2-chat-bison-001.jsonl",
    ),
]

COLUMNS = [
    "question_id",
    "model_a",
    "model_b",
    "winner",
    "grade_a",
    "grade_b",
    "len_a",
    "len_b",
    "header_a",
    "header_b",
    "list_a",
    "list_b",
    "bold_a",
    "bold_b",
]

ANS_START = "[The Start of Assistant's Answer]\n"
ANS_END = "\n[The End of Assistant's Answer]"


def git(mirror, *args):
    return subprocess.run(
        ["git", "-C", mirror, *args], capture_output=True, text=True, check=True
    ).stdout


def load_jsonl(mirror, path):
    text = git(mirror, "show", f"{COMMIT}:{path}")
    return [json.loads(line) for line in text.splitlines() if line.strip()]


# ---- style features: arena-hard-auto add_markdown_info.py @ 561534a ---------------------
CODE_BLOCK = re.compile("```([^`]*)```")


def remove_pattern(answer, pattern):
    blocks = pattern.findall(answer)
    for block in blocks:
        answer = answer.replace(block, "")
    return answer


def count_markdown_elements(markdown_text):
    header = sum(len(re.findall(rf"^#{{{k}}}\s", markdown_text, re.MULTILINE)) for k in range(1, 7))
    lists = len(re.findall(r"^\s*\d+\.\s", markdown_text, re.MULTILINE)) + len(
        re.findall(r"^\s*[-*+]\s", markdown_text, re.MULTILINE)
    )
    bold = len(re.findall(r"\*\*[^*\n]+\*\*", markdown_text)) + len(
        re.findall(r"__[^_\n]+__", markdown_text)
    )
    return header, lists, bold


def style_features(answer):
    header, lists, bold = count_markdown_elements(remove_pattern(answer, CODE_BLOCK))
    n_words = len(answer.split())  # stand-in for tiktoken cl100k token_len (not loadable offline)
    return {"len": n_words, "header": header, "list": lists, "bold": bold}


# -------------------------------------------------------------------------------------------


def parse_grade(score):
    """The judge's rating as stored in the 'score' field; None if missing/unparseable."""
    if isinstance(score, bool) or score is None:
        return None
    if isinstance(score, (int, float)) and not (isinstance(score, float) and math.isnan(score)):
        if float(score).is_integer() and 1 <= score <= 10:
            return int(score)
    return None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument(
        "--mirror",
        default="/work/.mirror/lmarena+arena-hard-auto/repo",
        help="git directory of a clone/mirror of github.com/" + REPO,
    )
    ap.add_argument("--out", default=os.path.dirname(os.path.abspath(__file__)))
    args = ap.parse_args()

    git(args.mirror, "cat-file", "-e", COMMIT + "^{commit}")
    print(f"repository {REPO} @ {COMMIT}")

    questions = load_jsonl(args.mirror, f"{BENCH}/question.jsonl")
    qids = [q["question_id"] for q in questions]
    assert len(qids) == len(set(qids)) == 300

    grades, feats, missing = {}, {}, Counter()
    for name, jpath, apath in MODELS:
        for p in (jpath, apath):
            blob = git(args.mirror, "rev-parse", f"{COMMIT}:{BENCH}/{p}").strip()
            print(f"  {BENCH}/{p}  blob {blob}")
        judg = load_jsonl(args.mirror, f"{BENCH}/{jpath}")
        ans = {a["question_id"]: a for a in load_jsonl(args.mirror, f"{BENCH}/{apath}")}
        assert {r["model"].split("/")[-1] for r in judg} == {name}
        assert len(judg) == 300 and {r["question_id"] for r in judg} == set(qids)
        for r in judg:
            qid = r["question_id"]
            text = ans[qid]["choices"][0]["turns"][0]
            up = r["user_prompt"]
            judged = up[up.index(ANS_START) + len(ANS_START) : up.rindex(ANS_END)]
            assert judged == text, (name, qid)  # features describe exactly what was rated
            g = parse_grade(r["score"])
            if g is None:
                missing[name] += 1
            grades[name, qid] = g
            feats[name, qid] = style_features(text)

    rng = random.Random(SEED)
    rows, dropped = [], Counter()
    for qid in qids:
        for m1, m2 in itertools.combinations([m[0] for m in MODELS], 2):
            a, b = (m1, m2) if rng.random() < 0.5 else (m2, m1)
            ga, gb = grades[a, qid], grades[b, qid]
            if ga is None or gb is None:
                dropped[
                    "grade missing for "
                    + ("both" if ga is None and gb is None else (a if ga is None else b))
                ] += 1
                continue
            winner = "model_a" if ga > gb else "model_b" if gb > ga else "tie"
            fa, fb = feats[a, qid], feats[b, qid]
            rows.append(
                {
                    "question_id": qid,
                    "model_a": a,
                    "model_b": b,
                    "winner": winner,
                    "grade_a": ga,
                    "grade_b": gb,
                    "len_a": fa["len"],
                    "len_b": fb["len"],
                    "header_a": fa["header"],
                    "header_b": fb["header"],
                    "list_a": fa["list"],
                    "list_b": fb["list"],
                    "bold_a": fa["bold"],
                    "bold_b": fb["bold"],
                }
            )

    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=COLUMNS, lineterminator="\n")
    w.writeheader()
    w.writerows(rows)
    data = buf.getvalue().encode("utf-8")
    csv_path = os.path.join(args.out, "arena_style_battles.csv")
    with open(csv_path, "wb") as f:
        f.write(data)
    with open(csv_path + ".gz", "wb") as f:
        with gzip.GzipFile(filename="arena_style_battles.csv", mode="wb", fileobj=f, mtime=0) as gz:
            gz.write(data)

    # ---- report ----
    print(
        f"\nmissing/unparseable GPT-4 ratings among selected models (of 300 each): {dict(missing)} "
        f"total {sum(missing.values())}"
    )
    print(f"pairs dropped because a rating was missing: {sum(dropped.values())}")
    for k, v in sorted(dropped.items()):
        print(f"    {k}: {v}")
    gz_bytes = os.path.getsize(csv_path + ".gz")
    print(f"rows written: {len(rows)}  ({len(data)} bytes csv, {gz_bytes} bytes gz)")
    for name, *_ in MODELS:
        vals = [grades[name, q] for q in qids if grades[name, q] is not None]
        print(f"    mean GPT-4 rating {name:28s} {sum(vals) / len(vals):.2f}")
    n = Counter()
    for r in rows:
        n[r["model_a"]] += 1
        n[r["model_b"]] += 1
    print("battles per model:", dict(sorted(n.items(), key=lambda kv: -kv[1])))
    wc = Counter(r["winner"] for r in rows)
    print("winner counts:", dict(wc), f"tie share {wc['tie'] / len(rows):.4f}")
    for side in ("model_a", "model_b"):
        d = [r["len_a"] - r["len_b"] for r in rows if r["winner"] == side]
        print(f"mean len_a - len_b when {side} wins: {sum(d) / len(d):.2f}  (n={len(d)})")
    d = [r["len_a"] - r["len_b"] for r in rows if r["winner"] == "tie"]
    print(f"mean len_a - len_b on ties: {sum(d) / len(d):.2f}  (n={len(d)})")
    print("first 3 rows:")
    print("\n".join(data.decode().splitlines()[:4]))


if __name__ == "__main__":
    sys.exit(main())
