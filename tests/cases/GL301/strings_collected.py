"""Precision case: strings collected in an evaluation loop.

A speech-recognition evaluation: ``asr_model.transcribe(...)`` returns the
transcripts as text, and the loop collects strings for the error-rate
computation. No tensor is kept.
"""


def word_error_rate(references, hypotheses):
    errors = sum(ref.split() != hyp.split() for ref, hyp in zip(references, hypotheses))
    return errors / max(len(references), 1)


class TranscriptionEvaluator:
    def __init__(self, asr_model, manifest):
        self.asr_model = asr_model
        self.manifest = manifest
        self.hypotheses = []
        self.report = ""

    def run(self, batch_size=16):
        for start in range(0, len(self.manifest), batch_size):
            paths = [item["audio_filepath"] for item in self.manifest[start : start + batch_size]]
            texts = self.asr_model.transcribe(paths, batch_size=batch_size)
            self.hypotheses.append(texts[0])  # expect-not: GL301
            self.report += "%s\n" % texts[0]  # expect-not: GL301

    def wer(self):
        return word_error_rate([item["text"] for item in self.manifest], self.hypotheses)
