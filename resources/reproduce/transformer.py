class Block(nn.Module):
    """Pre-LayerNorm Transformer block: causal multi-head self-attention, then a GELU MLP."""

    def __init__(self, d_model: int, heads: int, mlp_hidden: int) -> None:
        super().__init__()
        self.heads = heads
        self.ln1 = nn.LayerNorm(d_model)
        self.attn = nn.Module()
        self.attn.qkv = nn.Linear(d_model, 3 * d_model)
        self.attn.proj = nn.Linear(d_model, d_model)
        self.ln2 = nn.LayerNorm(d_model)
        self.mlp = nn.Sequential(nn.Linear(d_model, mlp_hidden), nn.GELU(), nn.Linear(mlp_hidden, d_model))

    def forward(self, x, mask: Tensor, ops: Ops):
        batch, time, d_model = x[0].shape
        head_dim = d_model // self.heads
        qkv, low = ops.linear(ops.layer_norm(x, self.ln1), self.attn.qkv)
        q, k, v = qkv.view(batch, time, 3, self.heads, head_dim).permute(2, 0, 3, 1, 4)
        # >>> plan
        ops.matmul_layer = self.layer_name + ".attn.scores"  # Q K^T, for the plan mode
        # <<< plan
        scores = ops.matmul((q, low), (k.transpose(-2, -1), low))
        scores = ops.mul(scores, 1.0 / math.sqrt(head_dim))
        scores = ops.masked_fill(scores, mask[:time, :time], float("-inf"))
        # >>> plan
        ops.matmul_layer = self.layer_name + ".attn.context"  # P V
        # <<< plan
        context, low = ops.matmul(ops.softmax(scores, -1), (v, low))
        merged = (context.transpose(1, 2).reshape(batch, time, d_model), low)
        x = ops.add(x, ops.linear(merged, self.attn.proj))
        h = ops.linear(ops.layer_norm(x, self.ln2), self.mlp[0])
        return ops.add(x, ops.linear(ops.gelu(h), self.mlp[2]))


class TinyTransformer(nn.Module):
    """AmpScope's tiny decoder-only character LM: token embedding + learned positions, pre-LN blocks,
    a final LayerNorm and a linear head over the vocabulary."""

    def __init__(self, vocab: int, context: int, d_model: int, heads: int, blocks: int,
                 mlp_hidden: int) -> None:
        super().__init__()
        self.tok_emb = nn.Embedding(vocab, d_model)
        self.pos_emb = nn.Parameter(torch.zeros(context, d_model))
        self.blocks = nn.ModuleList(Block(d_model, heads, mlp_hidden) for _ in range(blocks))
        self.ln_f = nn.LayerNorm(d_model)
        self.head = nn.Linear(d_model, vocab)
        # >>> plan
        # AmpScope's layer names, which a precision plan uses (the attention's matmuls: Block.forward).
        for number, block in enumerate(self.blocks):
            block.layer_name = "block%d" % number
            for linear, name in ((block.attn.qkv, "attn.qkv"), (block.attn.proj, "attn.proj"),
                                 (block.mlp[0], "mlp.fc1"), (block.mlp[2], "mlp.fc2")):
                linear.layer_name = "block%d.%s" % (number, name)
        self.head.layer_name = "head"
        # <<< plan
        self.register_buffer("mask", torch.ones(context, context, dtype=torch.bool).triu(1),
                             persistent=False)

    def forward(self, ids: Tensor, ops: Ops = PLAIN):
        time = ids.size(1)
        x = ops.add(ops.embedding(self.tok_emb.weight, ids),
                    ops.embedding(self.pos_emb, torch.arange(time, device=ids.device)))
        for block in self.blocks:
            x = block(x, self.mask, ops)
        return ops.linear(ops.layer_norm(x, self.ln_f), self.head)


def build_model() -> nn.Module:
    return TinyTransformer(AMPSCOPE_ARGS)
