"""Labelled workspaces of exported and serving models: ONNX, TorchScript, torch.export,
TF SavedModel, Keras 3 ``.keras``, diffusers pipelines and sentence-transformers models.

Names and records as the tools wrote them on toy models here (torch 2.14, diffusers 0.42.1,
sentence-transformers 6.2.0, keras 3.15), except TF SavedModel, whose layout is TensorFlow's
``saved_model/constants.py`` (ml-layouts.md §3.9: TensorFlow was not installed); sizes of
real models, as Sparse files. The TorchScript file is the real one of
tests/fixtures/exports, since only its archive's directory says what it is.
"""

from __future__ import annotations

import json
from pathlib import Path

from layout_kit import MB, Labelled, Sparse, as_category, under

FIXTURES = Path(__file__).resolve().parent / "fixtures"
TORCHSCRIPT = (FIXTURES / "exports" / "model_scripted.pt").read_bytes()


def exported_models() -> Labelled:
    """What torch.onnx.export, torch.jit.save, torch.export.save, Keras' model.save() and
    a TF SavedModel (TF Serving's <model>/<version>/ layout) write."""
    savedmodel = {"saved_model.pb": Sparse(412_880), "fingerprint.pb": Sparse(56),
                  "variables/variables.index": Sparse(24_301),
                  "variables/variables.data-00000-of-00001": Sparse(98 * MB),
                  "assets/vocab.txt": Sparse(231_508)}
    return Labelled("Exported models", {
        **as_category("checkpoint", {
            "export/model.onnx": Sparse(102 * MB), "export/model_scripted.pt": TORCHSCRIPT,
            "export/model_traced.pt": TORCHSCRIPT, "export/model.pt2": Sparse(102 * MB),
            "export/resnet50.keras": Sparse(98 * MB),
            **{f"serving/resnet/{v}/{n}": c for v in (1, 2, 3) for n, c in savedmodel.items()},
            **under("tf_export/saved_model", savedmodel)}),
        **as_category("other", {"export.py": "import torch\n",
                                "serving/models.config": "model_config_list {}\n"}),
    })


_UNET = {"_class_name": "UNet2DModel", "_diffusers_version": "0.42.1", "act_fn": "silu",
         "block_out_channels": [128, 128, 256, 256, 512, 512], "in_channels": 3,
         "layers_per_block": 2, "out_channels": 3, "sample_size": 128}
_SCHEDULER = {"_class_name": "DDPMScheduler", "_diffusers_version": "0.42.1",
              "beta_schedule": "linear", "num_train_timesteps": 1000, "prediction_type": "epsilon"}


def diffusers_pipelines() -> Labelled:
    """DDPMPipeline.save_pretrained() after the unconditional training example (its
    accelerate checkpoint-<step>/ folders beside the components), and a Stable Diffusion
    pipeline's component folders."""
    out = "ddpm-butterflies-128"
    index = {"_class_name": "DDPMPipeline", "_diffusers_version": "0.42.1",
             "scheduler": ["diffusers", "DDPMScheduler"], "unet": ["diffusers", "UNet2DModel"]}
    state = {"model.safetensors": Sparse(454 * MB), "optimizer.bin": Sparse(908 * MB),
             "scheduler.bin": Sparse(1_064), "random_states_0.pkl": Sparse(14_540)}
    sd = "sd-finetuned"
    sd_index = {"_class_name": "StableDiffusionPipeline", "_diffusers_version": "0.42.1",
                "text_encoder": ["transformers", "CLIPTextModel"],
                "tokenizer": ["transformers", "CLIPTokenizer"],
                "unet": ["diffusers", "UNet2DConditionModel"], "vae": ["diffusers",
                                                                       "AutoencoderKL"]}
    return Labelled("diffusers pipelines", {
        **as_category("checkpoint", under(out, {
            "model_index.json": json.dumps(index, indent=2),
            "scheduler/scheduler_config.json": json.dumps(_SCHEDULER, indent=2),
            "unet/config.json": json.dumps(_UNET, indent=2),
            "unet/diffusion_pytorch_model.safetensors": Sparse(454 * MB),
            **under("checkpoint-500", state), **under("checkpoint-1000", state)})),
        **as_category("log", under(out, {
            "logs/train_unconditional/events.out.tfevents.1796059200.gpu01.4242.0":
                Sparse(88_000)})),
        **as_category("checkpoint", under(sd, {
            "model_index.json": json.dumps(sd_index, indent=2),
            "scheduler/scheduler_config.json": json.dumps(_SCHEDULER, indent=2),
            "text_encoder/config.json": '{"model_type": "clip_text_model"}',
            "text_encoder/model.safetensors": Sparse(492 * MB),
            "tokenizer/merges.txt": Sparse(524_619), "tokenizer/vocab.json": Sparse(1_059_962),
            "tokenizer/special_tokens_map.json": '{"bos_token": "<|startoftext|>"}',
            "tokenizer/tokenizer_config.json": '{"model_max_length": 77}',
            "unet/config.json": '{"_class_name": "UNet2DConditionModel"}',
            "unet/diffusion_pytorch_model.safetensors": Sparse(3_438 * MB),
            "vae/config.json": '{"_class_name": "AutoencoderKL"}',
            "vae/diffusion_pytorch_model.safetensors": Sparse(334 * MB)})),
        **as_category("other", {"train_unconditional.py": "import diffusers\n"}),
    })


_MODULES = [{"idx": 0, "name": "0", "path": "",
             "type": "sentence_transformers.base.modules.transformer.Transformer"},
            {"idx": 1, "name": "1", "path": "1_Pooling",
             "type": "sentence_transformers.sentence_transformer.modules.pooling.Pooling"},
            {"idx": 2, "name": "2", "path": "2_Normalize",
             "type": "sentence_transformers.base.modules.normalize.Normalize"}]
_ST_CONFIG = {"__version__": {"pytorch": "2.14.1", "sentence_transformers": "6.2.0",
                              "transformers": "5.24.0"}, "default_prompt_name": None,
              "model_type": "SentenceTransformer", "prompts": {"document": "", "query": ""},
              "similarity_fn_name": "cosine"}


def sentence_transformers_model() -> Labelled:
    """SentenceTransformer.save(): the transformer module at the root, the other modules
    in numbered folders."""
    model = {"modules.json": json.dumps(_MODULES, indent=2),
             "config_sentence_transformers.json": json.dumps(_ST_CONFIG, indent=2),
             "sentence_bert_config.json": '{"max_seq_length": 256, "do_lower_case": false}',
             "config.json": '{"architectures": ["BertModel"], "model_type": "bert"}',
             "model.safetensors": Sparse(90_864_192), "tokenizer.json": Sparse(711_649),
             "tokenizer_config.json": '{"do_lower_case": true}', "vocab.txt": Sparse(231_508),
             "special_tokens_map.json": '{"cls_token": "[CLS]"}',
             "README.md": "---\ntags:\n- sentence-transformers\n---\n",
             "1_Pooling/config.json": '{"word_embedding_dimension": 384}',
             "2_Normalize/config.json": "{}"}
    return Labelled("sentence-transformers model", {
        **as_category("checkpoint", under("models/all-MiniLM-L6-v2-finetuned", model)),
        **as_category("checkpoint", under("st-out", model)),
        **as_category("other", {"finetune.py": "from sentence_transformers import "
                                               "SentenceTransformer\n"}),
    })


EXPORT_LAYOUTS = (exported_models, diffusers_pipelines, sentence_transformers_model)
