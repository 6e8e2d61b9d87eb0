"""Recall case (first-sight recall batch 13): a ROS 2 node puts its planner in
eval mode in ``__init__`` and runs it in a subscription callback.

``rclpy.node.Node`` is plain Python, so the node is no ``nn.Module`` whose
``train()`` could switch the planner back; no method trains it, so every
message runs a forward in eval mode with grad on. Precision: a node that
trains its model, a ``no_grad`` callback, a node of an unknown base: silent.
"""

import torch
from rclpy.node import Node
from planner.model import Planner
from planner.ros import NodeBase


class PlannerNode(Node):
    def __init__(self, config):
        super().__init__("planner_node")
        self.planner = Planner(config)
        self.planner.eval()
        self.pub = self.create_publisher(object, "/planning/trajectory", 1)

    def cb_objects(self, msg):
        inputs = torch.as_tensor(msg.data, device="cuda")[None]
        out = self.planner(inputs)[1]  # expect: GL101:15
        self.pub.publish(out[0].detach().cpu().numpy())


class QuietPlannerNode(Node):
    def __init__(self, config):
        self.planner = Planner(config).eval()

    @torch.no_grad()
    def cb_objects(self, msg):
        out = self.planner(torch.as_tensor(msg.data)[None])  # expect-not: GL101
        return out[0].cpu().numpy()


class OnlinePlannerNode(Node):
    def __init__(self, config):
        self.planner = Planner(config)
        self.planner.eval()

    def cb_feedback(self, msg):
        self.planner.train()

    def cb_objects(self, msg):
        out = self.planner(torch.as_tensor(msg.data)[None])  # expect-not: GL101
        return out[0].detach().cpu().numpy()


class BasePlannerNode(NodeBase):
    def __init__(self, config):
        super().__init__()
        self.planner = Planner(config)
        self.planner.eval()

    def cb_objects(self, msg):
        out = self.planner(torch.as_tensor(msg.data)[None])  # expect-not: GL101
        return out[0].detach().cpu().numpy()
