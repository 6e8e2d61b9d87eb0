"""Recall case (FlashRAG's dense index builder, first-sight batch 16): the
encoder comes from a helper that puts it in eval mode and returns it with its
tokenizer, unpacked onto attributes of ``self``; on several GPUs it is wrapped
in ``DataParallel``, whose forward runs the wrapped module in that module's own
mode. Every batch of the corpus is then encoded with gradients on. A wrapper
built around another module is no proof.
"""

import torch


def load_model(path, fp16=False):
    model = torch.load(path)
    model.eval()
    model.cuda()
    if fp16:
        model = model.half()
    tokenizer = object()
    return model, tokenizer


class IndexBuilder:
    def build_dense_index(self, corpus):
        self.encoder, self.tokenizer = load_model(self.model_path)
        self.encoder.to("cuda")
        if self.gpu_num > 1:
            self.encoder = torch.nn.DataParallel(self.encoder)
        embeddings = []
        for batch in corpus:
            inputs = self.tokenizer(batch)
            output = self.encoder(**inputs)  # expect: GL101:22
            embeddings.append(output.last_hidden_state[:, 0].detach().cpu().numpy())
        return embeddings

    def build_with_other_wrapper(self, corpus, other):
        self.wrapped, self.tokenizer = load_model(self.model_path)
        self.wrapped = torch.nn.DataParallel(other)
        return [self.wrapped(b).detach().cpu().numpy() for b in corpus]  # expect-not: GL101
