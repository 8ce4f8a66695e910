"""Writes the fixture files in this folder from the MLA paper's Table 1 (run once; the files
are committed). Independent of xr_agreement: plain pandas from the printed selections."""

import json
import os

import pandas as pd

HERE = os.path.dirname(os.path.abspath(__file__))

# Table 1 of Menzner & Leidner: 1-based bias types chosen per sentence and annotator.
SELECTIONS = {
    1: ([14], [14], [14]),
    2: ([22, 23], [27, 29, 31], [29, 31]),
    3: ([2, 5, 22], [3], [2]),
    4: ([17, 21, 22, 31], [2, 17, 22, 23, 29], [2, 21, 23, 31]),
}
NAMES = {2: "Ambiguous Attribution Bias", 3: "Anecdotal Evidence Bias", 5: "Cherry Picking Bias",
         14: "Faulty Analogy Bias", 17: "Intergroup Bias", 21: "Opinionated Bias",
         22: "Political Bias", 23: "Projection Bias", 27: "Speculation Bias",
         29: "Unsubstantiated Claims Bias", 31: "Word Choice Bias"}


def path(name):
    return os.path.join(HERE, name)


def main():
    sets = pd.DataFrame([(s, a + 1, ";".join(map(str, chosen)))
                         for s, row in SELECTIONS.items() for a, chosen in enumerate(row)],
                        columns=["sentence", "annotator", "labels"])
    sets.to_csv(path("bias_sets.csv"), index=False)
    sets.to_csv(path("bias_sets.tsv"), index=False, sep="\t")
    lists = sets.assign(labels=[list(map(int, v.split(";"))) for v in sets["labels"]])
    lists.to_parquet(path("bias_sets.parquet"), index=False)
    with open(path("bias_sets.jsonl"), "w") as handle:
        handle.writelines(json.dumps(record) + "\n" for record in lists.to_dict("records"))
    long = pd.DataFrame([(s, a + 1, j, int(j in chosen))
                         for s, row in SELECTIONS.items() for a, chosen in enumerate(row)
                         for j in range(1, 32)],
                        columns=["item", "rater", "label", "value"])
    long.to_csv(path("bias_long.csv"), index=False)
    long.to_parquet(path("bias_long.parquet"), index=False)
    with open(path("bias_labels.txt"), "w") as handle:
        handle.write("# the 31 bias types of the worked example (names as far as printed)\n")
        handle.writelines(f"{j}\t{NAMES[j]}\n" if j in NAMES else f"{j}\n" for j in range(1, 32))

    # missing annotations: (2, 3) and (4, 1) absent; (3, 2) an empty set
    with open(path("missing_sets.csv"), "w") as handle:
        handle.write("item,annotator,labels\n"
                     "a,x,p;q\na,y,p\na,z,q\nb,x,p\nb,y,p\nc,x,\nc,y,q\nc,z,\n"
                     "d,y,p;q\nd,z,p\n")
    with open(path("single.csv"), "w") as handle:
        handle.write("item,coder,rating\n"
                     "1,A,yes\n1,B,yes\n1,C,no\n2,A,no\n2,B,no\n2,C,no\n"
                     "3,A,maybe\n3,B,yes\n3,C,maybe\n4,A,yes\n4,B,yes\n4,C,yes\n"
                     "5,A,no\n5,B,maybe\n5,C,no\n")

    # malformed files: each must give one line naming row and column, exit code 2
    bad = {
        "bad_missing_column.csv": "item,labels\n1,a\n1,b\n",
        "bad_unknown_label.csv": "item,annotator,labels\n1,x,2;14\n1,y,14;99\n",
        "bad_duplicate.csv": "item,annotator,labels\n1,x,a\n1,y,a\n1,x,b\n",
        "bad_duplicate_long.csv": "item,annotator,label,value\n1,x,a,1\n1,y,a,0\n1,x,a,0\n",
        "bad_nonbinary.csv": "item,annotator,label,value\n1,x,a,1\n1,y,a,2\n",
        "bad_empty.csv": "",
        "bad_header_only.csv": "item,annotator,labels\n",
        "bad_blank_item.csv": "item,annotator,labels\n1,x,a\n,y,a\n",
        "bad_json.jsonl": '{"item": 1, "annotator": "x", "labels": ["a"]}\n{"item": 1,\n',
    }
    for name, text in bad.items():
        with open(path(name), "w") as handle:
            handle.write(text)


if __name__ == "__main__":
    main()
