"""Precision case: a script's training function, after which only inference runs.

``train_agent`` switches gradients off for the rest of the run (the agent's
update switches them on around its optimizer steps). The script's entry calls
it and then only loads the saved actor and renders episodes with functions of
this file that never train: no work after it needs grad. Reported only in the
preview tier. ``pretrain`` is followed by ``train_agent``, which trains:
reported.
"""

import sys

import torch


def build_env(env_class, env_args):
    return env_class(**env_args)


def render_episode(env, actor):
    state = env.reset()
    for _ in range(100):
        state, reward, done = env.step(actor(torch.as_tensor(state)))
        env.render()
        if done:
            return


def valid_agent(env_class, env_args, actor_path):
    env = build_env(env_class, env_args)
    actor = torch.load(actor_path)
    for _ in range(8):
        render_episode(env, actor)


def pretrain(agent, env):
    torch.set_grad_enabled(False)  # expect: GL105:5
    agent.explore(env)


def train_agent(agent, env, steps):
    torch.set_grad_enabled(False)  # expect-preview: GL105:5
    for _ in range(steps):
        buffer = agent.explore(env)
        agent.update_net(buffer)


def run(env_class, env_args, agent):
    env = build_env(env_class, env_args)
    pretrain(agent, env)
    agent.actor.train()
    train_agent(agent, env, 1000)
    if input("render? ") == "y":
        valid_agent(env_class, env_args, "actor.pth")


if __name__ == "__main__":
    from agents import Agent, CartPole

    run(CartPole, {"size": int(sys.argv[1])}, Agent())
