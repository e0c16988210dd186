"""bench.py's Markdown tables: every row of the run, bertpiece against the fastest peer per corpus and
thread count, and the checks' figures. Not run by itself."""

from __future__ import annotations


def print_markdown(rows, checks):
    print("| corpus | model | threads | tokenizer | MB/s | tokens/s | bertpiece speed-up | load ms | peak RSS MB "
          "| RSS growth MB |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        if "error" in r:
            print(f"| {r['corpus']} | {r['model']} | {r['threads']} | {r['case']} | error: {r['error'][:60]} "
                  "| | | | | |")
            continue
        mbs = r["bytes"] / r["encode_s"] / 1e6
        tps = r["tokens"] / r["encode_s"]
        ratio = f"{r['x_slower']:.1f}×" if "x_slower" in r and r["case"] != "bertpiece" else ""
        print(f"| {r['corpus']} | {r['model']} | {r['threads']} | {r['case']} | {mbs:.2f} | {tps:,.0f} | {ratio} "
              f"| {r['load_s'] * 1000:.0f} | {r['rss_mb']:.0f} | {r['rss_growth_mb']:.0f} |")
    # bertpiece against the fastest peer, per corpus and thread count
    print()
    print("| corpus | threads | bertpiece MB/s | fastest peer | its MB/s | bertpiece / fastest peer |")
    print("|---|---|---|---|---|---|")
    groups = {}
    for r in rows:
        if "error" not in r:
            groups.setdefault((r["corpus"], r["threads"]), []).append(r)
    for (corpus, threads), group in groups.items():
        ours = [r for r in group if r["case"] == "bertpiece"]
        peers = [r for r in group if r["case"] != "bertpiece"]
        if not ours or not peers:
            continue
        speed = lambda r: r["bytes"] / r["encode_s"] / 1e6  # noqa: E731
        best = max(peers, key=speed)
        print(f"| {corpus} | {threads} | {speed(ours[0]):.2f} | {best['case']} | {speed(best):.2f} | "
              f"{speed(ours[0]) / speed(best):.2f}× |")
    if checks:
        print()
        load = checks.get("load", {})
        if "error" not in load:
            print("| load (median of 7) | core `FullTokenizer` ms | `BertTokenizer.from_pretrained` ms |")
            print("|---|---|---|")
            for name, v in load.items():
                print(f"| {name} | {v['core_ms']:.1f} | {v['bert_tokenizer_ms']:.1f} |")
        sc = checks.get("scaling", {})
        if "error" not in sc and sc:
            print(f"\nen-large, 1 and {sc['threads']} threads taking turns in one process (7 turns, medians): "
                  f"{sc['one_mbs']:.1f} and {sc['all_mbs']:.1f} MB/s, {sc['ratio']:.2f}× per turn.")
        big = checks.get("big-string", {})
        if "error" not in big and big:
            print(f"\nOne 100 MB string (en-large repeated), 1 thread: {big['bytes'] / big['encode_s'] / 1e6:.1f} MB/s, "
                  f"{big['tokens']:,} ids, peak RSS {big['rss_mb']:.0f} MB (text alone: 100 MB).")
        ours, theirs = checks.get("ud10k-bertpiece", {}), checks.get("ud10k-transformers", {})
        if ours and theirs and "error" not in ours and "error" not in theirs:
            same = "same ids" if ours["ids_sum"] == theirs["ids_sum"] else "IDS DIFFER"
            print(f"\n10,000 UD sentences -> padded NumPy (max_length 128, truncation; {same}): bertpiece "
                  f"{ours['encode_s'] * 1000:.0f} ms, transformers {theirs['encode_s'] * 1000:.0f} ms: "
                  f"{theirs['encode_s'] / ours['encode_s']:.1f}× faster.")
