"""Precision case: accumulation in a helper whose only caller runs under no-grad.

A diffusion-pipeline-like class: ``__call__`` is decorated
``@torch.no_grad()`` and is the only caller of ``_prepare_image_embeds``, so
the image embeddings collected in the helper never carry a graph.
"""

import torch


class ImageVariationPipeline:
    def __init__(self, image_encoder, unet, scheduler):
        self.image_encoder = image_encoder
        self.unet = unet
        self.scheduler = scheduler

    def _prepare_image_embeds(self, images, num_per_prompt):
        image_embeds = []
        for image in images:
            embeds = self.image_encoder(image).image_embeds
            image_embeds.append(embeds[None, :])  # expect-not: GL301
        repeated = []
        for embeds in image_embeds:
            repeated.append(torch.cat([embeds] * num_per_prompt, dim=0))
        return repeated

    @torch.no_grad()
    def __call__(self, images, latents, num_per_prompt=1):
        embeds = self._prepare_image_embeds(images, num_per_prompt)
        for t in self.scheduler.timesteps:
            noise = self.unet(latents, t, encoder_hidden_states=torch.cat(embeds))
            latents = self.scheduler.step(noise, t, latents).prev_sample
        return latents
