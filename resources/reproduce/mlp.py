class AMPSCOPE_CLASS(nn.Module):
    """Linear layers with GELU between them, as the chapter's TinyMLP: nn.Sequential under "net", so
    the state_dict names are net.0.weight, net.0.bias, net.2.weight, ..."""

    def __init__(self, *sizes: int) -> None:
        super().__init__()
        layers = []
        for i in range(len(sizes) - 1):
            layers.append(nn.Linear(sizes[i], sizes[i + 1]))
            if i + 2 < len(sizes):
                layers.append(nn.GELU())
        self.net = nn.Sequential(*layers)
        # >>> plan
        for number, linear in enumerate(self.net[::2], 1):
            linear.layer_name = "fc%d" % number  # AmpScope's name for it, which a precision plan uses
        # <<< plan

    def forward(self, x: Tensor, ops: Ops = PLAIN):
        # With PLAIN ops this is self.net(x); the ops let the CPU FP16 emulation round where FP16 would.
        h = ops.input(x)
        for layer in self.net:
            h = ops.linear(h, layer) if isinstance(layer, nn.Linear) else ops.gelu(h)
        return h


def build_model() -> nn.Module:
    return AMPSCOPE_CLASS(AMPSCOPE_SIZES)
