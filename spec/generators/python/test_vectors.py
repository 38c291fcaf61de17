"""The generated Python rejection checks against the shared vectors (spec/vectors/).

Environment: ORBITKV_PACKAGE_ROOTS (folders holding generated packages), ORBITKV_VECTOR_FILES
(JSON vector files), ORBITKV_VERDICTS_OUT (where to write every verdict, for the TypeScript
comparison).
"""

import importlib
import json
import os
import sys
import unittest

ROOTS = os.environ["ORBITKV_PACKAGE_ROOTS"].split(os.pathsep)
FILES = os.environ["ORBITKV_VECTOR_FILES"].split(os.pathsep)
OUT = os.environ.get("ORBITKV_VERDICTS_OUT")
sys.path[:0] = ROOTS


def checks_by_engine():
    found = {}
    for root in ROOTS:
        for name in sorted(os.listdir(root)):
            if os.path.exists(os.path.join(root, name, "_data.py")):
                module = importlib.import_module(name + ".rejections")
                for pin in module._data.DATA["pins"]:
                    found[pin["engine"]] = module
    return found


class VectorTest(unittest.TestCase):
    verdicts = {}

    def test_every_vector(self):
        checks = checks_by_engine()
        count = 0
        for path in FILES:
            with open(path, encoding="utf-8") as handle:
                vectors = json.load(handle)
            for case in vectors["cases"]:
                key = os.path.basename(path) + "#" + case["name"]
                with self.subTest(key):
                    profile = case["profile"]
                    self.assertIsNone(checks[profile["engine"]].profile_problem(profile))
                    verdict = checks[profile["engine"]].evaluate(profile)
                    self.assertEqual(verdict["accepted"], case["expected"]["accepted"])
                    self.assertEqual([r["id"] for r in verdict["rejections"]], case["expected"]["rejections"])
                    module = checks[profile["engine"]]
                    VectorTest.verdicts[key] = {"verdict": verdict, "text": [module.describe(e) for e in verdict["rejections"]]}
                    count += 1
        self.assertGreater(count, 0)

    @classmethod
    def tearDownClass(cls):
        if OUT:
            with open(OUT, "w", encoding="utf-8") as handle:
                json.dump(cls.verdicts, handle, sort_keys=True)


if __name__ == "__main__":
    unittest.main()
