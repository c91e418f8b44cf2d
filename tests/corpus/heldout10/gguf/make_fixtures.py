"""gguf: a llama.cpp user converts a small Hugging Face style Llama checkpoint
(``models/toy-llama/``: ``config.json``, ``tokenizer.json``, ``model.safetensors``; random
toy weights here) to GGUF with the ``gguf`` Python package (the writer llama.cpp's own
``convert_hf_to_gguf.py`` uses), in the user's ``convert.py``, and keeps the ``.gguf`` files
beside the source weights, named as ``convert_hf_to_gguf.py`` names them by default
(``<Name>-<size>-<type>.gguf`` in the model's folder).

    python3.11 -m venv /tmp/h9/gguf/venv
    /tmp/h9/gguf/venv/bin/pip install gguf safetensors numpy
    /tmp/h9/gguf/venv/bin/python tests/corpus/heldout10/gguf/make_fixtures.py

``python convert.py models/toy-llama f16`` then ``python convert.py models/toy-llama q8_0``
(``gguf.GGUFWriter`` with llama metadata and vocabulary, tensor names mapped by
``gguf.get_tensor_name_map``, 2-D weights as F16 or quantized with ``gguf.quants.quantize``
to Q8_0, norms in F32); each run reads its file back with ``gguf.GGUFReader``.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from capture import record  # noqa: E402

CONVERT = '''"""Convert a HF Llama folder to GGUF: python convert.py MODEL_DIR {f16,q8_0}"""
import json
import sys
from pathlib import Path

import gguf
import numpy as np
from safetensors.numpy import load_file

model_dir, kind = Path(sys.argv[1]), sys.argv[2]
config = json.loads((model_dir / "config.json").read_text())
vocab = json.loads((model_dir / "tokenizer.json").read_text())["model"]["vocab"]
weights = load_file(model_dir / "model.safetensors")
n_params = sum(w.size for w in weights.values())
qtype = {"f16": gguf.GGMLQuantizationType.F16, "q8_0": gguf.GGMLQuantizationType.Q8_0}[kind]
out = model_dir / f"Toy-Llama-{n_params // 1000}K-{kind.upper()}.gguf"

writer = gguf.GGUFWriter(out, arch="llama")
writer.add_name("Toy Llama")
writer.add_file_type({"f16": gguf.LlamaFileType.MOSTLY_F16,
                      "q8_0": gguf.LlamaFileType.MOSTLY_Q8_0}[kind])
writer.add_context_length(config["max_position_embeddings"])
writer.add_embedding_length(config["hidden_size"])
writer.add_block_count(config["num_hidden_layers"])
writer.add_feed_forward_length(config["intermediate_size"])
writer.add_head_count(config["num_attention_heads"])
writer.add_head_count_kv(config["num_key_value_heads"])
writer.add_rope_dimension_count(config["hidden_size"] // config["num_attention_heads"])
writer.add_layer_norm_rms_eps(config["rms_norm_eps"])
writer.add_vocab_size(len(vocab))
writer.add_tokenizer_model("llama")
tokens = sorted(vocab, key=vocab.__getitem__)
writer.add_token_list(tokens)
writer.add_token_scores([-float(i) for i in range(len(tokens))])
writer.add_token_types([gguf.TokenType.CONTROL if t.startswith("<") else gguf.TokenType.NORMAL
                        for t in tokens])
writer.add_bos_token_id(vocab["<s>"])
writer.add_eos_token_id(vocab["</s>"])
writer.add_quantization_version(gguf.GGML_QUANT_VERSION)

names = gguf.get_tensor_name_map(gguf.MODEL_ARCH.LLAMA, config["num_hidden_layers"])
for hf_name, tensor in weights.items():
    name = names.get_name(hf_name, try_suffixes=(".weight", ".bias"))
    if tensor.ndim == 1:
        writer.add_tensor(name, tensor.astype(np.float32))
    elif qtype == gguf.GGMLQuantizationType.F16:
        writer.add_tensor(name, tensor.astype(np.float16))
    else:
        data = gguf.quants.quantize(tensor.astype(np.float32), qtype)
        writer.add_tensor(name, data, raw_dtype=qtype)
writer.write_header_to_file()
writer.write_kv_data_to_file()
writer.write_tensors_to_file()
writer.close()

reader = gguf.GGUFReader(out)
print(f"read back {len(reader.tensors)} tensors,",
      reader.fields["general.architecture"].contents(), "from", out)
print("wrote", out)
'''


def _source(folder: Path) -> None:
    import numpy as np
    from safetensors.numpy import save_file

    rng = np.random.default_rng(0)
    hidden, ffn, layers, heads, kv_heads = 64, 128, 2, 4, 2
    specials = ["<unk>", "<s>", "</s>"]
    words = ["the", "a", "cat", "dog", "sat", "on", "mat", "ran"]
    pieces = specials + ["\u2581" + w for w in words]
    pieces += [chr(c) for c in range(ord("a"), ord("z") + 1)] + ["\u2581"]
    pieces += [f"<0x{b:02X}>" for b in range(128 - len(pieces))]
    vocab = {p: i for i, p in enumerate(pieces)}
    config = {"architectures": ["LlamaForCausalLM"], "model_type": "llama",
              "hidden_size": hidden, "intermediate_size": ffn, "num_hidden_layers": layers,
              "num_attention_heads": heads, "num_key_value_heads": kv_heads,
              "max_position_embeddings": 256, "rms_norm_eps": 1e-5, "vocab_size": len(vocab),
              "bos_token_id": 1, "eos_token_id": 2, "torch_dtype": "float32",
              "tie_word_embeddings": False}
    head_dim = hidden // heads

    def w(*shape: int) -> np.ndarray:
        return (rng.normal(0, 0.02, size=shape)).astype(np.float32)

    tensors = {"model.embed_tokens.weight": w(len(vocab), hidden),
               "model.norm.weight": np.ones(hidden, np.float32),
               "lm_head.weight": w(len(vocab), hidden)}
    for i in range(layers):
        p = f"model.layers.{i}."
        tensors.update({
            p + "input_layernorm.weight": np.ones(hidden, np.float32),
            p + "post_attention_layernorm.weight": np.ones(hidden, np.float32),
            p + "self_attn.q_proj.weight": w(hidden, hidden),
            p + "self_attn.k_proj.weight": w(kv_heads * head_dim, hidden),
            p + "self_attn.v_proj.weight": w(kv_heads * head_dim, hidden),
            p + "self_attn.o_proj.weight": w(hidden, hidden),
            p + "mlp.gate_proj.weight": w(ffn, hidden),
            p + "mlp.up_proj.weight": w(ffn, hidden),
            p + "mlp.down_proj.weight": w(hidden, ffn)})
    folder.mkdir(parents=True)
    (folder / "config.json").write_text(json.dumps(config, indent=2) + "\n")
    (folder / "tokenizer.json").write_text(json.dumps(
        {"version": "1.0", "model": {"type": "Unigram", "vocab": vocab}}, indent=1) + "\n")
    save_file(tensors, str(folder / "model.safetensors"), metadata={"format": "pt"})


def run(work: Path) -> list[dict[str, object]]:
    _source(Path("models/toy-llama"))
    Path("convert.py").write_text(CONVERT)
    checkpoints = []
    for kind in ("f16", "q8_0"):
        command = ["python", "convert.py", "models/toy-llama", kind]
        done = subprocess.run([sys.executable, *command[1:]], capture_output=True, text=True,
                              check=True)
        sys.stderr.write(done.stdout + done.stderr)
        wrote = done.stdout.strip().splitlines()[-1].removeprefix("wrote ")
        assert Path(wrote).is_file() and wrote.endswith(f"-{kind.upper()}.gguf"), wrote
        checkpoints.append({
            "run": " ".join(command), "best": None, "latest": wrote,
            "evidence": f"the run's GGUFWriter wrote {wrote} (printed, and read back with "
                        "gguf.GGUFReader); a conversion writes one model file and gguf has "
                        "no notion of best"})
    return checkpoints


def label(path: str) -> str:
    if path.startswith("models/"):
        return "checkpoint"
    return "other"


if __name__ == "__main__":
    record(Path(__file__).resolve().parent, run, label, "gguf", tool="gguf",
           kind="model file format (GGUF, llama.cpp), written with the gguf Python package",
           command="python convert.py models/toy-llama f16; python convert.py "
                   "models/toy-llama q8_0 (convert.py: safetensors -> gguf.GGUFWriter, "
                   "models/toy-llama/Toy-Llama-<N>K-<TYPE>.gguf)")
