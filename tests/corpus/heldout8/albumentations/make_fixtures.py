"""albumentations: the user's ``augment.py`` writes augmented copies of the user's small
labelled image set (``data/images/*.png`` with COCO-style boxes in
``data/annotations.json``) to ``data/augmented/`` (``<name>_aug<k>.png`` and the moved boxes
in ``data/augmented/annotations.json``), with an ``A.Compose`` pipeline with
``A.BboxParams``, and serialises the pipeline with ``A.save`` (albumentations' documented
serialisation) to ``configs/augment.yaml``; images are read and written with OpenCV.

    python3.11 -m venv /tmp/h8/albumentations/venv
    /tmp/h8/albumentations/venv/bin/pip install albumentations
    /tmp/h8/albumentations/venv/bin/python tests/corpus/heldout8/albumentations/make_fixtures.py

``python augment.py 3``: three augmented copies of each of the six images.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from capture import record  # noqa: E402

AUGMENT = '''"""Write augmented copies of the labelled images: python augment.py COPIES"""
import json
import sys
from pathlib import Path

import albumentations as A
import cv2

copies = int(sys.argv[1])
transform = A.Compose([
    A.HorizontalFlip(p=0.5),
    A.Affine(scale=(0.8, 1.2), rotate=(-15, 15), p=0.7),
    A.RandomBrightnessContrast(p=0.5),
    A.HueSaturationValue(p=0.3),
    A.GaussNoise(p=0.3),
], bbox_params=A.BboxParams(format="coco", label_fields=["labels"]), seed=0)
Path("configs").mkdir(exist_ok=True)
A.save(transform, "configs/augment.yaml", data_format="yaml")

coco = json.loads(Path("data/annotations.json").read_text())
out_dir = Path("data/augmented")
out_dir.mkdir(exist_ok=True)
out = {"categories": coco["categories"], "images": [], "annotations": []}
for image in coco["images"]:
    pixels = cv2.imread(f"data/images/{image['file_name']}")
    boxes = [a for a in coco["annotations"] if a["image_id"] == image["id"]]
    for k in range(copies):
        result = transform(image=pixels, bboxes=[a["bbox"] for a in boxes],
                           labels=[a["category_id"] for a in boxes])
        name = f"{Path(image['file_name']).stem}_aug{k}.png"
        cv2.imwrite(str(out_dir / name), result["image"])
        new_id = len(out["images"]) + 1
        out["images"].append({"id": new_id, "file_name": name, "width": image["width"],
                              "height": image["height"], "source": image["file_name"]})
        for box, cat in zip(result["bboxes"], result["labels"]):
            out["annotations"].append({"id": len(out["annotations"]) + 1, "image_id": new_id,
                                       "category_id": int(cat),
                                       "bbox": [round(float(v), 2) for v in box]})
        print("wrote", out_dir / name)
(out_dir / "annotations.json").write_text(json.dumps(out, indent=1))
print("wrote", out_dir / "annotations.json")
'''


def _images() -> None:
    import cv2
    import numpy as np

    rng = np.random.default_rng(0)
    Path("data/images").mkdir(parents=True)
    coco: dict[str, list[dict[str, object]]] = {
        "categories": [{"id": 1, "name": "square"}, {"id": 2, "name": "disc"}],
        "images": [], "annotations": []}
    for i in range(6):
        img = np.full((64, 64, 3), rng.integers(40, 200, size=3), dtype=np.uint8)
        x, y, s = (int(v) for v in rng.integers(4, 30, size=3))
        if i % 2 == 0:
            cv2.rectangle(img, (x, y), (x + s, y + s), (20, 220, 20), -1)
        else:
            cv2.circle(img, (x + s // 2, y + s // 2), s // 2, (220, 20, 20), -1)
        name = f"shape_{i:02d}.png"
        cv2.imwrite(f"data/images/{name}", img)
        coco["images"].append({"id": i + 1, "file_name": name, "width": 64, "height": 64})
        coco["annotations"].append({"id": i + 1, "image_id": i + 1,
                                    "category_id": 1 + i % 2, "bbox": [x, y, s, s]})
    Path("data/annotations.json").write_text(json.dumps(coco, indent=1))


def run(work: Path) -> list[dict[str, object]]:
    _images()
    Path("augment.py").write_text(AUGMENT)
    done = subprocess.run([sys.executable, "augment.py", "3"], capture_output=True, text=True)
    sys.stderr.write(done.stdout + done.stderr)
    assert done.returncode == 0, done.returncode
    wrote = [x.split()[1] for x in done.stdout.splitlines() if x.startswith("wrote ")]
    assert len(wrote) == 19 and all(Path(p).exists() for p in wrote), wrote
    assert Path("configs/augment.yaml").exists()
    return [{
        "run": "python augment.py 3", "best": None, "latest": None,
        "evidence": f"augment.py printed 'wrote <path>' for {len(wrote) - 1} augmented images "
                    f"and their annotations.json; albumentations transforms images and trains "
                    f"nothing, so there is no checkpoint"}]


def label(path: str) -> str:
    if path.startswith("data/augmented/"):
        return "augmented"
    if path.startswith("data/"):
        return "dataset"
    return "other"


if __name__ == "__main__":
    record(Path(__file__).resolve().parent, run, label, "albumentations",
           tool="albumentations", kind="image data augmentation (user script)",
           command="python augment.py 3 (augment.py: A.Compose of HorizontalFlip, Affine, "
                   "RandomBrightnessContrast, HueSaturationValue, GaussNoise with "
                   "BboxParams(format='coco'), A.save to configs/augment.yaml; three copies "
                   "of each data/images/<name>.png to data/augmented/<name>_aug<k>.png and "
                   "the moved boxes to data/augmented/annotations.json)")
