<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN">
<context>
    <name>AboutDialog</name>
    <message>
        <source>About AmpScope</source>
        <translation>关于 AmpScope</translation>
    </message>
    <message>
        <source>&lt;h2&gt;AmpScope %1&lt;/h2&gt;&lt;p&gt;Watch mixed-precision training happen: number formats, autocast, loss scaling and GradScaler, bit by bit.&lt;/p&gt;&lt;table cellspacing=&apos;4&apos;&gt;&lt;tr&gt;&lt;td&gt;&lt;b&gt;AmpScope&lt;/b&gt;&lt;/td&gt;&lt;td&gt;%1&lt;/td&gt;&lt;/tr&gt;&lt;tr&gt;&lt;td&gt;&lt;b&gt;Qt&lt;/b&gt;&lt;/td&gt;&lt;td&gt;%2 (built with %3)&lt;/td&gt;&lt;/tr&gt;&lt;tr&gt;&lt;td&gt;&lt;b&gt;LibTorch&lt;/b&gt;&lt;/td&gt;&lt;td&gt;%4 (%5)&lt;/td&gt;&lt;/tr&gt;&lt;/table&gt;&lt;p&gt;Licence: &lt;b&gt;%6&lt;/b&gt;. AmpScope is free software: you can redistribute it and/or modify it under the terms of the &lt;a href=&apos;https://www.gnu.org/licenses/gpl-3.0.html&apos;&gt;GNU General Public License&lt;/a&gt;, version 3 or (at your option) any later version. It comes with no warranty.&lt;/p&gt;&lt;p&gt;Plots are drawn with &lt;b&gt;QCustomPlot&lt;/b&gt; by Emanuel Eichhammer (GPL). Training runs on &lt;b&gt;LibTorch&lt;/b&gt; (BSD-style licence); the interface uses &lt;b&gt;Qt&lt;/b&gt; (LGPL-3.0).&lt;/p&gt;</source>
        <translation>&lt;h2&gt;AmpScope %1&lt;/h2&gt;&lt;p&gt;逐位观察混合精度训练：数值格式、autocast、loss scaling 与 GradScaler。&lt;/p&gt;&lt;table cellspacing=&apos;4&apos;&gt;&lt;tr&gt;&lt;td&gt;&lt;b&gt;AmpScope&lt;/b&gt;&lt;/td&gt;&lt;td&gt;%1&lt;/td&gt;&lt;/tr&gt;&lt;tr&gt;&lt;td&gt;&lt;b&gt;Qt&lt;/b&gt;&lt;/td&gt;&lt;td&gt;%2（构建于 %3）&lt;/td&gt;&lt;/tr&gt;&lt;tr&gt;&lt;td&gt;&lt;b&gt;LibTorch&lt;/b&gt;&lt;/td&gt;&lt;td&gt;%4（%5）&lt;/td&gt;&lt;/tr&gt;&lt;/table&gt;&lt;p&gt;许可证：&lt;b&gt;%6&lt;/b&gt;。AmpScope 是自由软件：你可以依据 &lt;a href=&apos;https://www.gnu.org/licenses/gpl-3.0.html&apos;&gt;GNU 通用公共许可证&lt;/a&gt;第 3 版或（由你选择）任何更新的版本重新发布和/或修改它。本软件不提供任何担保。&lt;/p&gt;&lt;p&gt;图表由 Emanuel Eichhammer 的 &lt;b&gt;QCustomPlot&lt;/b&gt;（GPL）绘制。训练运行在 &lt;b&gt;LibTorch&lt;/b&gt;（BSD 风格许可证）上；界面使用 &lt;b&gt;Qt&lt;/b&gt;（LGPL-3.0）。&lt;/p&gt;</translation>
    </message>
    <message>
        <source>AmpScope %1
Qt %2 (built with %3)
LibTorch %4
Licence %5</source>
        <translation>AmpScope %1
Qt %2（构建于 %3）
LibTorch %4
许可证 %5</translation>
    </message>
    <message>
        <source>not in this LibTorch</source>
        <translation>此 LibTorch 中没有</translation>
    </message>
    <message>
        <source>&lt;b style=&apos;color:#c00000&apos;&gt;wrong: not used&lt;/b&gt;</source>
        <translation>&lt;b style=&apos;color:#c00000&apos;&gt;错误：不使用&lt;/b&gt;</translation>
    </message>
    <message>
        <source>error up to %1× what FP32 accumulation and one rounding allow</source>
        <translation>误差最高达 FP32 累加加一次舍入所允许值的 %1×</translation>
    </message>
    <message>
        <source>correct</source>
        <translation>正确</translation>
    </message>
    <message>
        <source>%1 % of %2 outputs off the exact rounding, by at most %3 ulp</source>
        <translation>%2 个输出中有 %1 % 偏离精确舍入，最多 %3 ulp</translation>
    </message>
    <message>
        <source>; against the emulation: %1 % differ, by at most %2 ulp</source>
        <translation>；与模拟相比：%1 % 不同，最多 %2 ulp</translation>
    </message>
    <message>
        <source>not used by AmpScope&apos;s models</source>
        <translation>AmpScope 的模型未使用</translation>
    </message>
    <message>
        <source>error at most %1 of what FP32 accumulation and one rounding allow</source>
        <translation>误差至多为 FP32 累加加一次舍入所允许值的 %1</translation>
    </message>
    <message>
        <source>%1 results as documented</source>
        <translation>%1 个结果与文档一致</translation>
    </message>
    <message>
        <source>used by %1</source>
        <translation>用于 %1</translation>
    </message>
    <message>
        <source>&lt;p&gt;&lt;b&gt;Native kernels on this CPU&lt;/b&gt;, each checked against an exact reference before a mode may use it:&lt;/p&gt;</source>
        <translation>&lt;p&gt;&lt;b&gt;本机 CPU 上的原生内核&lt;/b&gt;，每个在被模式使用之前都与精确参考值核对：&lt;/p&gt;</translation>
    </message>
    <message>
        <source>Checked in this session.</source>
        <translation>在本次运行中核对。</translation>
    </message>
    <message>
        <source>Checked at the first start on this machine and kept in %1; &lt;code&gt;ampscope-cli kernels --recheck&lt;/code&gt; checks again.</source>
        <translation>在本机首次启动时核对，结果保存在 %1；&lt;code&gt;ampscope-cli kernels --recheck&lt;/code&gt; 会重新核对。</translation>
    </message>
</context>
<context>
    <name>AutosaveManager</name>
    <message>
        <source>Cannot write %1: %2</source>
        <translation>无法写入 %1：%2</translation>
    </message>
    <message>
        <source>Cannot read %1: %2</source>
        <translation>无法读取 %1：%2</translation>
    </message>
    <message numerus="yes">
        <source>The last line of the journal was cut short when AmpScope stopped and was dropped; %n step(s) were restored.</source>
        <translation>
            <numerusform>日志的最后一行在 AmpScope 停止时被截断，已将其丢弃；已恢复 %n 个步骤。</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>The last line of the journal of the followed run %1 was cut short when AmpScope stopped and was dropped; %n step(s) were restored.</source>
        <translation>
            <numerusform>跟踪运行 %1 的日志的最后一行在 AmpScope 停止时被截断，已将其丢弃；已恢复 %n 个步骤。</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>BitCellsWidget</name>
    <message>
        <source>s</source>
        <translation>s</translation>
    </message>
    <message>
        <source>exponent (%1)</source>
        <translation>指数（%1）</translation>
    </message>
    <message>
        <source>exp (%1)</source>
        <translation>指数（%1）</translation>
    </message>
    <message>
        <source>mantissa (%1)</source>
        <translation>尾数（%1）</translation>
    </message>
    <message>
        <source>m (%1)</source>
        <translation>尾数（%1）</translation>
    </message>
    <message>
        <source>&lt;b&gt;Sign bit&lt;/b&gt;: 0 = positive, 1 = negative.</source>
        <translation>&lt;b&gt;符号位&lt;/b&gt;：0 = 正，1 = 负。</translation>
    </message>
    <message>
        <source>&lt;b&gt;Exponent bit %1&lt;/b&gt; (adds 2&lt;sup&gt;%1&lt;/sup&gt; to the biased exponent field).&lt;br&gt;The value&apos;s power of two is field &amp;minus; bias (%2); field 0 means zero or subnormal, all ones means infinity or NaN.</source>
        <translation>&lt;b&gt;指数位 %1&lt;/b&gt;（为带偏置的指数字段加上 2&lt;sup&gt;%1&lt;/sup&gt;）。&lt;br&gt;数值的 2 的幂次为 字段 &amp;minus; 偏置（%2）；字段为 0 表示零或次正规数，全 1 表示无穷大或 NaN。</translation>
    </message>
    <message>
        <source>&lt;b&gt;Mantissa bit %1&lt;/b&gt;: adds 2&lt;sup&gt;&amp;minus;%2&lt;/sup&gt; to the significand 1.m (or 0.m for a subnormal).</source>
        <translation>&lt;b&gt;尾数位 %1&lt;/b&gt;：为有效数 1.m（次正规数为 0.m）加上 2&lt;sup&gt;&amp;minus;%2&lt;/sup&gt;。</translation>
    </message>
    <message>
        <source>%1&lt;br&gt;Bit %2 of %3. &lt;i&gt;Click to flip it.&lt;/i&gt;</source>
        <translation>%1&lt;br&gt;第 %2 位，共 %3 位。&lt;i&gt;点击可翻转该位。&lt;/i&gt;</translation>
    </message>
</context>
<context>
    <name>ClaimText</name>
    <message>
        <source>%1 steps recorded</source>
        <translation>%1 已记录的步数</translation>
    </message>
    <message>
        <source>%1 loss, mean of the last %2 steps</source>
        <translation>%1 的 loss（最近 %2 步的平均）</translation>
    </message>
    <message>
        <source>%1 loss above %2's</source>
        <translation>%1 的 loss 高出 %2 的比例</translation>
    </message>
    <message>
        <source>%1 loss fell by</source>
        <translation>%1 的 loss 下降量</translation>
    </message>
    <message>
        <source>%1 fell as far as %2, by</source>
        <translation>%1 的下降幅度占 %2 的比例</translation>
    </message>
    <message>
        <source>%1 loss scale</source>
        <translation>%1 的 loss scale</translation>
    </message>
    <message>
        <source>%1 skipped steps</source>
        <translation>%1 跳过的步数</translation>
    </message>
    <message>
        <source>%1 scale grew again after a backoff</source>
        <translation>%1 的 scale 在回退后重新增长的次数</translation>
    </message>
    <message>
        <source>%1 norm the clip saw</source>
        <translation>%1 裁剪时看到的范数</translation>
    </message>
    <message>
        <source>%1 true gradient norm</source>
        <translation>%1 的真实梯度范数</translation>
    </message>
    <message>
        <source>%1 gradient norm after clipping</source>
        <translation>%1 裁剪后的梯度范数</translation>
    </message>
    <message>
        <source>%1 norm the clip saw / true norm</source>
        <translation>%1 裁剪时看到的范数 / 真实范数</translation>
    </message>
    <message>
        <source>%1 peak bytes of a step</source>
        <translation>%1 单步的峰值字节数</translation>
    </message>
    <message>
        <source>%1 peak / %2's peak</source>
        <translation>%1 的峰值 / %2 的峰值</translation>
    </message>
    <message>
        <source>%1 values flushed to zero</source>
        <translation>%1 被冲成 0 的数值个数</translation>
    </message>
    <message>
        <source>%1 gradient values exactly 0</source>
        <translation>%1 恰好为 0 的梯度值比例</translation>
    </message>
    <message>
        <source>%1 share of %2 saturated</source>
        <translation>%1 的 %2 饱和比例</translation>
    </message>
    <message>
        <source>%1 share of %2 flushed to 0</source>
        <translation>%1 的 %2 被冲成 0 的比例</translation>
    </message>
    <message>
        <source>%1 log2 of %2's scale</source>
        <translation>%1 的 %2 的 scale（log2）</translation>
    </message>
    <message>
        <source>%1 block-scale span of %2, binades</source>
        <translation>%1 的 %2 的块 scale 跨度（二进制数量级）</translation>
    </message>
    <message>
        <source>waiting</source>
        <translation>等待中</translation>
    </message>
    <message>
        <source>holds since step %1</source>
        <translation>自第 %1 步起成立</translation>
    </message>
    <message>
        <source>held from step %1 to %2, not now</source>
        <translation>第 %1 到第 %2 步成立，现在不成立</translation>
    </message>
    <message>
        <source>does not hold</source>
        <translation>不成立</translation>
    </message>
    <message>
        <source>between %1 and %2</source>
        <translation>介于 %1 和 %2 之间</translation>
    </message>
    <message>
        <source> and </source>
        <translation> 且 </translation>
    </message>
    <message>
        <source>every mode (%1)</source>
        <translation>每种模式（%1）</translation>
    </message>
    <message>
        <source> at step %1</source>
        <translation>（第 %1 步）</translation>
    </message>
    <message>
        <source> at steps %1–%2</source>
        <translation>（第 %1–%2 步）</translation>
    </message>
    <message>
        <source>%1%2: not measured yet (claim %3)</source>
        <translation>%1%2：尚未测得（断言 %3）</translation>
    </message>
    <message>
        <source>not measured yet (claim %1)</source>
        <translation>尚未测得（断言 %1）</translation>
    </message>
    <message>
        <source>%1 %2 (claim %3)</source>
        <translation>%1 %2（断言 %3）</translation>
    </message>
    <message>
        <source>%1 %2%3: %4 (claim %5)</source>
        <translation>%1 %2%3：%4（断言 %5）</translation>
    </message>
    <message>
        <source>the gradients</source>
        <translation>各梯度</translation>
    </message>
    <message>
        <source>the forward operands</source>
        <translation>各前向操作数</translation>
    </message>
    <message>
        <source>%1 loss</source>
        <translation>%1 的 loss</translation>
    </message>
</context>
<context>
    <name>ClipNormPlot</name>
    <message>
        <source>step</source>
        <translation>步</translation>
    </message>
    <message>
        <source>gradient L2 norm (log)</source>
        <translation>梯度 L2 范数（对数）</translation>
    </message>
    <message>
        <source>%1: norm clip_grad_norm_ saw</source>
        <translation>%1：clip_grad_norm_ 看到的范数</translation>
    </message>
    <message>
        <source>%1: true norm after clipping</source>
        <translation>%1：裁剪后的真实范数</translation>
    </message>
    <message>
        <source>%1: clip saw</source>
        <translation>%1：clip 看到的</translation>
    </message>
    <message>
        <source>%1: after clip</source>
        <translation>%1：裁剪后</translation>
    </message>
    <message>
        <source>max_norm = %1</source>
        <translation>max_norm = %1</translation>
    </message>
    <message>
        <source>Run to see the gradient norm before and after clipping.</source>
        <translation>运行后可在此查看裁剪前后的梯度范数。</translation>
    </message>
</context>
<context>
    <name>ConfigSchema</name>
    <message>
        <source>must be a finite number in %1 (got %2)</source>
        <translation>必须是 %1 内的有限数（收到 %2）</translation>
    </message>
    <message>
        <source>must be &gt; %1 (got %2)</source>
        <translation>必须 &gt; %1（收到 %2）</translation>
    </message>
    <message>
        <source>must be &gt;= %1 (got %2)</source>
        <translation>必须 &gt;= %1（收到 %2）</translation>
    </message>
    <message>
        <source>must be &lt; %1 (got %2)</source>
        <translation>必须 &lt; %1（收到 %2）</translation>
    </message>
    <message>
        <source>must be &lt;= %1 (got %2)</source>
        <translation>必须 &lt;= %1（收到 %2）</translation>
    </message>
    <message>
        <source>at least one precision mode is needed</source>
        <translation>至少需要一种精度模式</translation>
    </message>
    <message>
        <source>unknown mode &apos;%1&apos; (known: %2)</source>
        <translation>未知模式 &apos;%1&apos;（已知：%2）</translation>
    </message>
    <message>
        <source>mode %1 is listed twice</source>
        <translation>模式 %1 列出了两次</translation>
    </message>
    <message>
        <source>unknown value &apos;%1&apos; (known: %2)</source>
        <translation>未知值 &apos;%1&apos;（已知：%2）</translation>
    </message>
    <message>
        <source>not an integer (got &apos;%1&apos;)</source>
        <translation>不是整数（收到 &apos;%1&apos;）</translation>
    </message>
    <message>
        <source>must be in %1 (got %2)</source>
        <translation>必须在 %1 内（收到 %2）</translation>
    </message>
    <message>
        <source>not a number (got &apos;%1&apos;)</source>
        <translation>不是数字（收到 &apos;%1&apos;）</translation>
    </message>
    <message>
        <source>expected true or false (got &apos;%1&apos;)</source>
        <translation>应为 true 或 false（收到 &apos;%1&apos;）</translation>
    </message>
    <message>
        <source>unknown value</source>
        <translation>未知值</translation>
    </message>
    <message>
        <source>one step would need about %1 (%2, %3 parameters, %4 mode(s), batch %5), more than the %6 a step may use; at most batch %7 fits</source>
        <translation>一步大约需要 %1（%2，%3 个参数，%4 种模式，batch %5），超过了一步可用的 %6；最多只能用 batch %7</translation>
    </message>
    <message>
        <source>The model to train; choosing one loads its preset first</source>
        <translation>要训练的模型；选择模型会先载入它的预设</translation>
    </message>
    <message>
        <source>The precision modes to compare side by side</source>
        <translation>并排比较的精度模式</translation>
    </message>
    <message>
        <source>The optimizer</source>
        <translation>优化器</translation>
    </message>
    <message>
        <source>Learning rate</source>
        <translation>学习率</translation>
    </message>
    <message>
        <source>SGD&apos;s momentum (SGD only)</source>
        <translation>SGD 的动量（仅用于 SGD）</translation>
    </message>
    <message>
        <source>AdamW&apos;s decoupled weight decay</source>
        <translation>AdamW 的解耦权重衰减</translation>
    </message>
    <message>
        <source>AdamW&apos;s eps; fp16-pure stores it in FP16 too, where 1e-8 rounds to 0 and 1e-4 trains</source>
        <translation>AdamW 的 eps；fp16-pure 同样以 FP16 存储它，1e-8 会被舍入为 0，1e-4 则可以正常训练</translation>
    </message>
    <message>
        <source>Examples per step</source>
        <translation>每步的样本数</translation>
    </message>
    <message>
        <source>Initial weights and batches: the same seed gives the same run</source>
        <translation>决定初始权重和批数据：相同的种子得到相同的运行</translation>
    </message>
    <message>
        <source>Training steps; the run stops by itself after this many</source>
        <translation>训练步数；运行到这么多步后自动停止</translation>
    </message>
    <message>
        <source>The loss is multiplied by this before backward, as auxiliary losses are; small weights push FP16 gradients below 2^-24, where they flush to zero</source>
        <translation>在 backward 之前把 loss 乘以这个数，就像辅助 loss 那样；很小的权重会把 FP16 梯度压到 2^-24 以下，在那里它们会被冲为零</translation>
    </message>
    <message>
        <source>Every initial weight and bias is multiplied by this; larger weights have a coarser FP16 spacing, so model.half() loses more small updates</source>
        <translation>每个初始权重和 bias 都乘以这个数；权重越大，FP16 的间距越粗，model.half() 丢掉的微小更新就越多</translation>
    </message>
    <message>
        <source>GradScaler&apos;s initial loss scale (PyTorch&apos;s default is 65536 = 2^16)</source>
        <translation>GradScaler 的初始 loss scale（PyTorch 的默认值为 65536 = 2^16）</translation>
    </message>
    <message>
        <source>GradScaler&apos;s scale multiplier after growth-interval clean steps</source>
        <translation>连续 growth-interval 步正常后 GradScaler 的 scale 乘以的系数</translation>
    </message>
    <message>
        <source>GradScaler&apos;s scale multiplier when the gradients hold inf or NaN</source>
        <translation>梯度含有 inf 或 NaN 时 GradScaler 的 scale 乘以的系数</translation>
    </message>
    <message>
        <source>Clean steps before GradScaler grows the scale</source>
        <translation>GradScaler 增大 scale 前需要连续正常的步数</translation>
    </message>
    <message>
        <source>GradScaler on; off, it passes the loss and the step through unchanged</source>
        <translation>启用 GradScaler；关闭时它原样传递 loss 和优化步</translation>
    </message>
    <message>
        <source>Give fp16-pure (model.half()) a GradScaler too</source>
        <translation>让 fp16-pure（model.half()）也使用 GradScaler</translation>
    </message>
    <message>
        <source>When clip_grad_norm_ runs: after unscale_ (correct) or before it (clips the scaled gradients, the lesson&apos;s mistake)</source>
        <translation>clip_grad_norm_ 何时运行：在 unscale_ 之后（正确），或在其之前（裁剪的是放大后的梯度，本课演示的错误）</translation>
    </message>
    <message>
        <source>clip_grad_norm_&apos;s max_norm</source>
        <translation>clip_grad_norm_ 的 max_norm</translation>
    </message>
    <message>
        <source>Histograms and rounding counts every N steps and at step 1 (1 = every step; larger keeps runs fast)</source>
        <translation>每 N 步及第 1 步记录直方图和舍入计数（1 = 每步；越大运行越快）</translation>
    </message>
    <message>
        <source>Intra-op threads of each mode&apos;s training thread</source>
        <translation>每个模式的训练线程使用的算子内线程数</translation>
    </message>
    <message>
        <source>How BF16/FP16 modes run where LibTorch has native kernels: auto (the faster on this CPU, timed once), native, or emulated (FP32 arithmetic rounded exactly)</source>
        <translation>在 LibTorch 有原生内核时 BF16/FP16 模式的运行方式：auto（在本机 CPU 上取较快者，只计时一次）、native（原生）或 emulated（FP32 运算并精确舍入）</translation>
    </message>
    <message>
        <source>fp8-delayed: how many steps&apos; amaxes the scale looks back over (Transformer Engine&apos;s default is 1024)</source>
        <translation>fp8-delayed：缩放因子回看多少步的 amax（Transformer Engine 的默认值为 1024）</translation>
    </message>
    <message>
        <source>FP8 per-tensor scales: scale = format max / amax / 2^margin</source>
        <translation>FP8 逐张量缩放：scale = 格式最大值 / amax / 2^margin</translation>
    </message>
    <message>
        <source>FP8 per-tensor scaling on; off, every scale is 1 and values meet the format&apos;s fixed range as they are</source>
        <translation>开启 FP8 逐张量缩放；关闭时所有缩放因子为 1，数值按原样落入格式的固定范围</translation>
    </message>
    <message>
        <source>Multiply this step&apos;s input batch by the spike factor (0 = never): an amax spike</source>
        <translation>在这一步把输入批次乘以尖峰系数（0 = 从不）：制造一次 amax 尖峰</translation>
    </message>
    <message>
        <source>The factor the spike step&apos;s inputs are multiplied by</source>
        <translation>尖峰步的输入所乘的系数</translation>
    </message>
    <message>
        <source>The first linear layer gets input feature 0 times this and weight column 0 divided by it, every step, every mode (1 = off): an outlier feature</source>
        <translation>第一个线性层的输入第 0 个特征乘以这个系数、权重第 0 列除以它，每一步、每种模式都如此（1 = 关闭）：制造一个离群特征</translation>
    </message>
    <message>
        <source>The plan lane: the mode of every layer the plan does not name, and how its other ops (GELU, softmax, layer norm, the loss) run</source>
        <translation>方案通道：方案未列出的每一层所用的模式，以及其他运算（GELU、softmax、layer norm、损失）的运行方式</translation>
    </message>
    <message>
        <source>The plan lane&apos;s layers in their own modes, LAYER=MODE separated by commas (fc1=fp32,fc5=bf16-amp)</source>
        <translation>方案通道中使用各自模式的层，LAYER=MODE，以逗号分隔（fc1=fp32,fc5=bf16-amp）</translation>
    </message>
    <message>
        <source>%1</source>
        <translation>%1</translation>
    </message>
    <message>
        <source>%1 has no layer &apos;%2&apos; (its layers: %3)</source>
        <translation>%1 没有层“%2”（它的层：%3）</translation>
    </message>
    <message>
        <source>On instrumented steps, record what rounding the FP32 gradients and activation gradients into FP16, BF16, FP8, MXFP8 and NVFP4 would cost (SQNR, values changed): the precision advice&apos;s SQNR and FP8 columns</source>
        <translation>在带测量的步上，记录把 FP32 梯度和激活梯度舍入为 FP16、BF16、FP8、MXFP8 和 NVFP4 的代价（SQNR、被改变的值）：即精度建议中的 SQNR 与 FP8 列</translation>
    </message>
</context>
<context>
    <name>ExportDialog</name>
    <message>
        <source>Export</source>
        <translation>导出</translation>
    </message>
    <message>
        <source>PNG image</source>
        <translation>PNG 图像</translation>
    </message>
    <message>
        <source>PDF (vector)</source>
        <translation>PDF（矢量）</translation>
    </message>
    <message>
        <source>SVG (vector)</source>
        <translation>SVG（矢量）</translation>
    </message>
    <message>
        <source>%1x (%2 dpi)</source>
        <translation>%1x（%2 dpi）</translation>
    </message>
    <message>
        <source>Pixels per screen pixel. 2x or 3x stays sharp on a projector or a HiDPI screen.</source>
        <translation>每个屏幕像素对应的像素数。2x 或 3x 在投影仪或高分辨率屏幕上依然清晰。</translation>
    </message>
    <message>
        <source>Slide, %1×%2 (larger fonts, thicker lines)</source>
        <translation>幻灯片，%1×%2（更大的字体、更粗的线条）</translation>
    </message>
    <message>
        <source>Custom</source>
        <translation>自定义</translation>
    </message>
    <message>
        <source> px</source>
        <translation> 像素</translation>
    </message>
    <message>
        <source>Browse…</source>
        <translation>浏览…</translation>
    </message>
    <message>
        <source>&amp;What:</source>
        <translation>内容(&amp;W)：</translation>
    </message>
    <message>
        <source>&amp;Format:</source>
        <translation>格式(&amp;F)：</translation>
    </message>
    <message>
        <source>S&amp;cale:</source>
        <translation>缩放(&amp;C)：</translation>
    </message>
    <message>
        <source>Si&amp;ze:</source>
        <translation>尺寸(&amp;Z)：</translation>
    </message>
    <message>
        <source>F&amp;ile:</source>
        <translation>文件(&amp;I)：</translation>
    </message>
    <message>
        <source>&amp;Export</source>
        <translation>导出(&amp;E)</translation>
    </message>
    <message>
        <source>Replace file?</source>
        <translation>替换文件？</translation>
    </message>
    <message>
        <source>%1 already exists. Replace it?</source>
        <translation>%1 已存在。要替换它吗？</translation>
    </message>
    <message>
        <source>Current size, %1×%2</source>
        <translation>当前尺寸，%1×%2</translation>
    </message>
    <message>
        <source>%1×%2 pixels</source>
        <translation>%1×%2 像素</translation>
    </message>
    <message>
        <source>%1×%2 page, vector</source>
        <translation>%1×%2 页面，矢量</translation>
    </message>
    <message>
        <source>%1 files (*.%2)</source>
        <translation>%1 文件 (*.%2)</translation>
    </message>
    <message>
        <source>Export to</source>
        <translation>导出到</translation>
    </message>
    <message>
        <source>Export failed</source>
        <translation>导出失败</translation>
    </message>
    <message>
        <source>There is nothing to export.</source>
        <translation>没有可导出的内容。</translation>
    </message>
</context>
<context>
    <name>ExportManager</name>
    <message>
        <source>Export &amp;Image…</source>
        <translation>导出图像(&amp;I)…</translation>
    </message>
    <message>
        <source>Save a plot, a panel or the whole window as PNG, PDF or SVG</source>
        <translation>把一个图表、一个面板或整个窗口保存为 PNG、PDF 或 SVG</translation>
    </message>
    <message>
        <source>Copy &amp;window image</source>
        <translation>复制窗口图像(&amp;W)</translation>
    </message>
    <message>
        <source>%1 files (*.%2)</source>
        <translation>%1 文件 (*.%2)</translation>
    </message>
    <message>
        <source>Export plot</source>
        <translation>导出图表</translation>
    </message>
    <message>
        <source>Plot</source>
        <translation>图表</translation>
    </message>
    <message>
        <source>Whole window</source>
        <translation>整个窗口</translation>
    </message>
    <message>
        <source>Panel: %1</source>
        <translation>面板：%1</translation>
    </message>
    <message>
        <source>%1 (%2)</source>
        <translation>%1（%2）</translation>
    </message>
    <message>
        <source>Plot: %1</source>
        <translation>图表：%1</translation>
    </message>
    <message>
        <source>Central area</source>
        <translation>中央区域</translation>
    </message>
    <message>
        <source>Exported %1</source>
        <translation>已导出 %1</translation>
    </message>
    <message>
        <source>Window image copied to the clipboard</source>
        <translation>窗口图像已复制到剪贴板</translation>
    </message>
    <message>
        <source>The window image could not be made</source>
        <translation>无法生成窗口图像</translation>
    </message>
    <message>
        <source>Export as PNG (%1x)…</source>
        <translation>导出为 PNG（%1x）…</translation>
    </message>
    <message>
        <source>Export as PDF…</source>
        <translation>导出为 PDF…</translation>
    </message>
    <message>
        <source>Export as SVG…</source>
        <translation>导出为 SVG…</translation>
    </message>
    <message>
        <source>Export as slide PNG (%1×%2)…</source>
        <translation>导出为幻灯片 PNG（%1×%2）…</translation>
    </message>
    <message>
        <source>Copy image</source>
        <translation>复制图像</translation>
    </message>
    <message>
        <source>Plot image copied to the clipboard</source>
        <translation>图表图像已复制到剪贴板</translation>
    </message>
    <message>
        <source>The plot image could not be made</source>
        <translation>无法生成图表图像</translation>
    </message>
    <message>
        <source>Export failed</source>
        <translation>导出失败</translation>
    </message>
</context>
<context>
    <name>ExportWriter</name>
    <message>
        <source>No file name given.</source>
        <translation>没有给出文件名。</translation>
    </message>
    <message>
        <source>Cannot export to &quot;%1&quot;: %2 is not an image format AmpScope writes. Use .png, .pdf or .svg.</source>
        <translation>无法导出到“%1”：%2 不是 AmpScope 能写入的图像格式。请使用 .png、.pdf 或 .svg。</translation>
    </message>
    <message>
        <source>a name without an extension</source>
        <translation>没有扩展名的文件名</translation>
    </message>
    <message>
        <source>the image is empty or too large</source>
        <translation>图像为空或过大</translation>
    </message>
    <message>
        <source>the size %1x%2 at scale %3 is not a size that can be drawn</source>
        <translation>缩放 %3 下的尺寸 %1x%2 无法绘制</translation>
    </message>
    <message>
        <source>unknown format</source>
        <translation>未知格式</translation>
    </message>
</context>
<context>
    <name>FinfoTableWidget</name>
    <message>
        <source>The limits of each format, as &lt;code&gt;torch.finfo&lt;/code&gt; reports them (min is called &lt;i&gt;lowest&lt;/i&gt; here: the most negative finite value). &lt;b&gt;eps&lt;/b&gt; is the gap between 1 and the next value: the relative precision. BF16 has FP32&apos;s range but a larger eps than FP16.</source>
        <translation>各格式的极限值，与 &lt;code&gt;torch.finfo&lt;/code&gt; 报告的一致（这里把 min 称为 &lt;i&gt;lowest&lt;/i&gt;：最小的有限负数）。&lt;b&gt;eps&lt;/b&gt; 是 1 与下一个可表示值之间的间隔，即相对精度。BF16 具有 FP32 的范围，但 eps 比 FP16 更大。</translation>
    </message>
    <message>
        <source>dtype</source>
        <translation>dtype</translation>
    </message>
    <message>
        <source>torch name</source>
        <translation>torch 名称</translation>
    </message>
    <message>
        <source>s+e+m</source>
        <translation>符号+指数+尾数</translation>
    </message>
    <message>
        <source>max</source>
        <translation>最大值</translation>
    </message>
    <message>
        <source>lowest (min)</source>
        <translation>最小值（min）</translation>
    </message>
    <message>
        <source>smallest normal</source>
        <translation>最小正规数</translation>
    </message>
    <message>
        <source>smallest subnormal</source>
        <translation>最小次正规数</translation>
    </message>
    <message>
        <source>eps</source>
        <translation>eps</translation>
    </message>
    <message>
        <source>digits</source>
        <translation>十进制位数</translation>
    </message>
    <message>
        <source>The dtype&apos;s name in PyTorch.</source>
        <translation>该 dtype 在 PyTorch 中的名称。</translation>
    </message>
    <message>
        <source>Sign, exponent and mantissa bits.</source>
        <translation>符号位、指数位和尾数位的位数。</translation>
    </message>
    <message>
        <source>Largest finite value: (2 − 2^−m) × 2^emax.</source>
        <translation>最大的有限值：(2 − 2^−m) × 2^emax。</translation>
    </message>
    <message>
        <source>Most negative finite value, −max (torch.finfo().min).</source>
        <translation>最小的有限负数，即 −max（torch.finfo().min）。</translation>
    </message>
    <message>
        <source>Smallest positive normal value, 2^(1−bias) (torch.finfo().tiny).</source>
        <translation>最小的正正规数，2^(1−bias)（torch.finfo().tiny）。</translation>
    </message>
    <message>
        <source>Smallest positive subnormal value, 2^(1−bias−m); anything below half of it rounds to zero.</source>
        <translation>最小的正次正规数，2^(1−bias−m)；小于它一半的数都会舍入为零。</translation>
    </message>
    <message>
        <source>Distance from 1 to the next representable value, 2^−m.</source>
        <translation>1 到下一个可表示值的距离，2^−m。</translation>
    </message>
    <message>
        <source>Decimal digits the format always preserves, floor(m × log10 2).</source>
        <translation>该格式总能保留的十进制位数，floor(m × log10 2)。</translation>
    </message>
    <message>
        <source>Copy as CSV</source>
        <translation>复制为 CSV</translation>
    </message>
    <message>
        <source>Copy the whole table to the clipboard as comma-separated values, at full double precision.</source>
        <translation>将整张表以逗号分隔值的形式复制到剪贴板，保留完整的双精度。</translation>
    </message>
    <message>
        <source>Export CSV…</source>
        <translation>导出 CSV…</translation>
    </message>
    <message>
        <source>Save the whole table as a CSV file (UTF-8, full double precision).</source>
        <translation>把整张表保存为 CSV 文件（UTF-8，完整双精度）。</translation>
    </message>
</context>
<context>
    <name>FormatRowWidget</name>
    <message>
        <source>%1 exponent bits, no sign · bias %2</source>
        <translation>%1 位指数位，无符号位 · 偏置 %2</translation>
    </message>
    <message>
        <source>no encoding</source>
        <translation>无编码</translation>
    </message>
    <message>
        <source>E8M0 has no sign and no zero: zero and negative values have no encoding (NaN here).</source>
        <translation>E8M0 没有符号位也没有零：零和负值没有编码（此处为 NaN）。</translation>
    </message>
    <message>
        <source>%1 has no NaN: a NaN has no encoding (zero here; in an MX block the scale carries NaN).</source>
        <translation>%1 没有 NaN：NaN 没有编码（此处为零；在 MX 块中由缩放因子表示 NaN）。</translation>
    </message>
    <message>
        <source>saturated → max</source>
        <translation>饱和 → 最大值</translation>
    </message>
    <message>
        <source>Beyond %1&apos;s max: it has no infinity or NaN, so the value is clamped to ±%2.</source>
        <translation>超出 %1 的最大值：它没有无穷也没有 NaN，所以值被截断为 ±%2。</translation>
    </message>
    <message>
        <source>saturating (satfinite): %1 (%2)</source>
        <translation>饱和转换（satfinite）：%1（%2）</translation>
    </message>
    <message>
        <source>PyTorch stores %1: %2</source>
        <translation>PyTorch 存储 %1：%2</translation>
    </message>
    <message>
        <source>1111 1111 is %1&apos;s only NaN pattern (no zero, no infinity)</source>
        <translation>1111 1111 是 %1 唯一的 NaN 编码（没有零，没有无穷）</translation>
    </message>
    <message>
        <source>2&lt;sup&gt;e&amp;minus;bias&lt;/sup&gt; =</source>
        <translation>2&lt;sup&gt;e&amp;minus;偏置&lt;/sup&gt; =</translation>
    </message>
    <message>
        <source>1+%1+%2 bits · bias %3</source>
        <translation>1+%1+%2 位 · 偏置 %3</translation>
    </message>
    <message>
        <source>%1 sign bit, %2 exponent bits, %3 stored mantissa bits. The exponent is stored with a bias of %4 = 2&lt;sup&gt;%2&amp;minus;1&lt;/sup&gt;&amp;minus;1, so field e means 2&lt;sup&gt;e&amp;minus;%4&lt;/sup&gt;. %5 byte(s) per element in memory.</source>
        <translation>%1 位符号位，%2 位指数位，%3 位存储的尾数位。指数以偏置 %4 = 2&lt;sup&gt;%2&amp;minus;1&lt;/sup&gt;&amp;minus;1 存储，所以字段 e 表示 2&lt;sup&gt;e&amp;minus;%4&lt;/sup&gt;。每个元素在内存中占 %5 字节。</translation>
    </message>
    <message>
        <source>How the bits make the value.&lt;br&gt;Normal: (&amp;minus;1)&lt;sup&gt;s&lt;/sup&gt; &amp;times; 2&lt;sup&gt;e&amp;minus;bias&lt;/sup&gt; &amp;times; 1.m&lt;br&gt;Subnormal (e = 0): (&amp;minus;1)&lt;sup&gt;s&lt;/sup&gt; &amp;times; 2&lt;sup&gt;1&amp;minus;bias&lt;/sup&gt; &amp;times; 0.m&lt;br&gt;e all ones: infinity (m = 0) or NaN (m &amp;ne; 0).</source>
        <translation>各个位如何组成数值。&lt;br&gt;正规数：(&amp;minus;1)&lt;sup&gt;s&lt;/sup&gt; &amp;times; 2&lt;sup&gt;e&amp;minus;bias&lt;/sup&gt; &amp;times; 1.m&lt;br&gt;次正规数（e = 0）：(&amp;minus;1)&lt;sup&gt;s&lt;/sup&gt; &amp;times; 2&lt;sup&gt;1&amp;minus;bias&lt;/sup&gt; &amp;times; 0.m&lt;br&gt;e 全为 1：无穷大（m = 0）或 NaN（m &amp;ne; 0）。</translation>
    </message>
    <message>
        <source>The value this format actually stores: the input rounded to the nearest representable value (ties to even).</source>
        <translation>该格式实际存储的值：输入舍入到最接近的可表示值（平局时取偶数）。</translation>
    </message>
    <message>
        <source>Absolute rounding error |stored &amp;minus; input|.</source>
        <translation>绝对舍入误差 |存储值 &amp;minus; 输入|。</translation>
    </message>
    <message>
        <source>Relative rounding error |stored &amp;minus; input| / |input|. Compare it with this format&apos;s eps / 2 = %1.</source>
        <translation>相对舍入误差 |存储值 &amp;minus; 输入| / |输入|。可与该格式的 eps / 2 = %1 比较。</translation>
    </message>
    <message>
        <source>The encoding as a hexadecimal bit pattern. Type it into the value field to read it back.</source>
        <translation>以十六进制位模式表示的编码。把它输入数值框即可读回。</translation>
    </message>
    <message>
        <source>The class of the stored value: zero, subnormal, normal, infinity or NaN.</source>
        <translation>存储值的类别：零、次正规数、正规数、无穷大或 NaN。</translation>
    </message>
    <message>
        <source>stored</source>
        <translation>存储值</translation>
    </message>
    <message>
        <source>error</source>
        <translation>误差</translation>
    </message>
    <message>
        <source>bits</source>
        <translation>位</translation>
    </message>
    <message>
        <source>class</source>
        <translation>类别</translation>
    </message>
    <message>
        <source>prev</source>
        <translation>上一个</translation>
    </message>
    <message>
        <source>Previous representable %1 value (toward &amp;minus;infinity); it becomes the entry value.</source>
        <translation>前一个可表示的 %1 值（朝 &amp;minus;无穷方向）；它会成为输入值。</translation>
    </message>
    <message>
        <source>next</source>
        <translation>下一个</translation>
    </message>
    <message>
        <source>Next representable %1 value (toward +infinity); it becomes the entry value.</source>
        <translation>下一个可表示的 %1 值（朝 +无穷方向）；它会成为输入值。</translation>
    </message>
    <message>
        <source>overflow → NaN</source>
        <translation>溢出 → NaN</translation>
    </message>
    <message>
        <source>Too large for %1, which has no infinity: the value became NaN.</source>
        <translation>对 %1 来说太大，而它没有无穷大：该值变成了 NaN。</translation>
    </message>
    <message>
        <source>NaN</source>
        <translation>NaN</translation>
    </message>
    <message>
        <source>Not a number: exponent all ones and a non-zero mantissa.</source>
        <translation>非数（NaN）：指数全为 1 且尾数非零。</translation>
    </message>
    <message>
        <source>overflow → inf</source>
        <translation>溢出 → inf</translation>
    </message>
    <message>
        <source>Larger than the format&apos;s max (%1 after rounding): stored as infinity.</source>
        <translation>大于该格式的最大值（舍入后为 %1）：存储为无穷大。</translation>
    </message>
    <message>
        <source>flushed to 0</source>
        <translation>冲为 0</translation>
    </message>
    <message>
        <source>Smaller than half the smallest subnormal (%1): the value is lost, stored as zero. This is gradient underflow.</source>
        <translation>小于最小次正规数（%1）的一半：数值丢失，存储为零。这就是梯度下溢。</translation>
    </message>
    <message>
        <source>subnormal</source>
        <translation>次正规数</translation>
    </message>
    <message>
        <source>Below the smallest normal value (%1): stored with fewer significant bits, so the relative error grows.</source>
        <translation>低于最小正规数（%1）：以更少的有效位存储，因此相对误差增大。</translation>
    </message>
    <message>
        <source>exact</source>
        <translation>精确</translation>
    </message>
    <message>
        <source>Representable exactly: no rounding error.</source>
        <translation>可精确表示：没有舍入误差。</translation>
    </message>
    <message>
        <source>rounded</source>
        <translation>已舍入</translation>
    </message>
    <message>
        <source>Rounded to the nearest representable value.</source>
        <translation>已舍入到最接近的可表示值。</translation>
    </message>
    <message>
        <source>%1 abs</source>
        <translation>%1 绝对</translation>
    </message>
    <message>
        <source>%1 rel</source>
        <translation>%1 相对</translation>
    </message>
    <message>
        <source>e = 0, m = 0:</source>
        <translation>e = 0，m = 0：</translation>
    </message>
    <message>
        <source>e all ones, m = 0:</source>
        <translation>e 全为 1，m = 0：</translation>
    </message>
    <message>
        <source>S.1111.111 is %1&apos;s only NaN pattern (it has no infinity)</source>
        <translation>S.1111.111 是 %1 唯一的 NaN 位模式（它没有无穷大）</translation>
    </message>
    <message>
        <source>e all ones, m = %1 &amp;ne; 0: NaN</source>
        <translation>e 全为 1，m = %1 &amp;ne; 0：NaN</translation>
    </message>
    <message>
        <source>subnormal (&amp;minus;1)&lt;sup&gt;s&lt;/sup&gt;&amp;times;2&lt;sup&gt;1&amp;minus;bias&lt;/sup&gt;&amp;times;0.m =</source>
        <translation>次正规数 (&amp;minus;1)&lt;sup&gt;s&lt;/sup&gt;&amp;times;2&lt;sup&gt;1&amp;minus;bias&lt;/sup&gt;&amp;times;0.m =</translation>
    </message>
    <message>
        <source>(&amp;minus;1)&lt;sup&gt;s&lt;/sup&gt;&amp;times;2&lt;sup&gt;e&amp;minus;bias&lt;/sup&gt;&amp;times;1.m =</source>
        <translation>(&amp;minus;1)&lt;sup&gt;s&lt;/sup&gt;&amp;times;2&lt;sup&gt;e&amp;minus;bias&lt;/sup&gt;&amp;times;1.m =</translation>
    </message>
</context>
<context>
    <name>Fp8ScalePlot</name>
    <message>
        <source>Which quantised tensors: all of them, the forward operands (inputs and weights, E4M3), the gradients (E5M2), or one tensor.</source>
        <translation>显示哪些量化张量：全部、前向操作数（输入和权重，E4M3）、梯度（E5M2），或单个张量。</translation>
    </message>
    <message>
        <source>step</source>
        <translation>步</translation>
    </message>
    <message>
        <source>scale: values × scale before rounding (log₂ axis)</source>
        <translation>scale：舍入前数值所乘的系数（log₂ 轴）</translation>
    </message>
    <message>
        <source>All quantised tensors</source>
        <translation>全部量化张量</translation>
    </message>
    <message>
        <source>Forward: inputs and weights</source>
        <translation>前向：输入和权重</translation>
    </message>
    <message>
        <source>Backward: gradients</source>
        <translation>反向：梯度</translation>
    </message>
    <message>
        <source>%1 (largest block scale)</source>
        <translation>%1（最大的块 scale）</translation>
    </message>
    <message>
        <source>%1 (smallest block scale)</source>
        <translation>%1（最小的块 scale）</translation>
    </message>
    <message>
        <source>Run an FP8 mode to see its scales.</source>
        <translation>运行一个 FP8 模式即可看到它的 scale。</translation>
    </message>
    <message>
        <source>Scale, %1 at step %2: %3 (%4). The recipe multiplies the tensor by it before rounding to the FP8 format.</source>
        <translation>缩放因子，%1，第 %2 步：%3（%4）。该配方先把张量乘以它，再舍入到 FP8 格式。</translation>
    </message>
</context>
<context>
    <name>HeadlessTrainer</name>
    <message>
        <source>The number of steps must be positive (got %1).</source>
        <translation>步数必须为正（收到 %1）。</translation>
    </message>
    <message>
        <source>The run panel&apos;s configuration is not valid; fix it before training.</source>
        <translation>运行面板中的配置无效；请先修正再训练。</translation>
    </message>
    <message>
        <source>The run panel does not accept %1 steps.</source>
        <translation>运行面板不接受 %1 步。</translation>
    </message>
    <message>
        <source>Training could not start: %1</source>
        <translation>训练无法开始：%1</translation>
    </message>
    <message>
        <source>Training stopped at step %1: %2</source>
        <translation>训练在第 %1 步停止：%2</translation>
    </message>
    <message>
        <source>Training failed at step %1: %2</source>
        <translation>训练在第 %1 步失败：%2</translation>
    </message>
    <message>
        <source>Training reached step %1 of %2 within the %3 s time limit; stopped.</source>
        <translation>在 %3 秒的时间限制内训练到第 %1 步（共 %2 步）；已停止。</translation>
    </message>
</context>
<context>
    <name>HeatMapPlot</name>
    <message>
        <source>Scaled</source>
        <translation>缩放后</translation>
    </message>
    <message>
        <source>Unscaled</source>
        <translation>未缩放</translation>
    </message>
    <message>
        <source>Scaled: as the GradScaler saw them; unscaled: as the optimizer gets them.</source>
        <translation>缩放后：GradScaler 看到的梯度；未缩放：优化器拿到的梯度。</translation>
    </message>
    <message>
        <source>step</source>
        <translation>步</translation>
    </message>
    <message>
        <source>binary exponent ⌊log₂|g|⌋</source>
        <translation>二进制指数 ⌊log₂|g|⌋</translation>
    </message>
    <message>
        <source>values per bin</source>
        <translation>每个区间的数值个数</translation>
    </message>
    <message>
        <source>%1 flush to 0 below</source>
        <translation>%1 在此以下冲为 0</translation>
    </message>
    <message>
        <source>%1 subnormal below</source>
        <translation>%1 在此以下为次正规数</translation>
    </message>
    <message>
        <source>%1 overflow above</source>
        <translation>%1 在此以上溢出</translation>
    </message>
    <message>
        <source>%1 saturates above</source>
        <translation>%1 在此以上饱和</translation>
    </message>
    <message>
        <source>Run to see the exponents over time.</source>
        <translation>运行后可在此查看指数随时间的变化。</translation>
    </message>
    <message>
        <source>step %1
|g| in [%2, %3): %4 values
Click (or arrows and Enter): this bin&apos;s value in the number formats panel</source>
        <translation>第 %1 步
|g| 在 [%2, %3) 中：%4 个值
点击（或用方向键加 Enter）：在数值格式面板中查看该区间的值</translation>
    </message>
    <message>
        <source>Exponent heat map, %1 at step %2: %3 ≤ |g| &lt; %4 holds %5 of %6 values. Shown is the bin&apos;s lower edge: the engine counts the values of each bin exactly but does not keep them.</source>
        <translation>指数热力图，%1，第 %2 步：%3 ≤ |g| &lt; %4 区间内有 %6 个值中的 %5 个。显示的是该区间的下边界：引擎精确统计每个区间的值的个数，但不保存这些值本身。</translation>
    </message>
</context>
<context>
    <name>HistogramPlot</name>
    <message>
        <source>formats panel: %1 (bin %2)</source>
        <translation>数值格式面板：%1（区间 %2）</translation>
    </message>
    <message>
        <source>%1: %2 gradient blocks %3 … %4, %5 per %6 scale</source>
        <translation>%1：%2 梯度块 %3 … %4，每 %5 个值一个 %6 scale</translation>
    </message>
    <message>
        <source>Scaled (as the GradScaler saw them)</source>
        <translation>缩放后（GradScaler 看到的）</translation>
    </message>
    <message>
        <source>Unscaled (true gradients)</source>
        <translation>未缩放（真实梯度）</translation>
    </message>
    <message>
        <source>Loss scaling multiplies every gradient by the scale: the histogram slides log₂(scale) bars to the right, out of FP16&apos;s flush-to-zero zone.</source>
        <translation>Loss scaling 把每个梯度都乘以 scale：直方图向右平移 log₂(scale) 个柱，离开 FP16 会冲为 0 的区域。</translation>
    </message>
    <message>
        <source>Which gradients: all parameters summed, all tapped activation gradients, or one tensor.</source>
        <translation>显示哪些梯度：所有参数梯度之和、所有采样的激活梯度，或单个张量。</translation>
    </message>
    <message>
        <source>Log counts</source>
        <translation>对数计数</translation>
    </message>
    <message>
        <source>Modes</source>
        <translation>模式</translation>
    </message>
    <message>
        <source>Values with no exponent bin: exact zeros, infinities and NaNs. &quot;Would flush&quot; counts finite values that round to 0 in the format it names: the mode&apos;s own (E5M2 or E4M3 for the FP8 modes, at scale 1), FP16 for FP32 modes, to show what would happen.</source>
        <translation>没有指数区间的值：精确的零、无穷大和 NaN。“将被冲为 0”统计在其所注明的格式中会舍入为 0 的有限值：该模式自己的格式（FP8 模式为 E5M2 或 E4M3，按 scale 1 计算），FP32 模式按 FP16 计算，用来展示会发生什么。</translation>
    </message>
    <message>
        <source>binary exponent e = ⌊log₂|g|⌋   (bar e counts |g| in [2ᵉ, 2ᵉ⁺¹))</source>
        <translation>二进制指数 e = ⌊log₂|g|⌋   （柱 e 统计 [2ᵉ, 2ᵉ⁺¹) 内的 |g|）</translation>
    </message>
    <message>
        <source>values per bin (count)</source>
        <translation>每个区间的数值个数（计数）</translation>
    </message>
    <message>
        <source>%1 → 0
|g| &lt; %2
(%2 ties to 0)</source>
        <translation>%1 → 0
|g| &lt; %2
（%2 平局舍入为 0）</translation>
    </message>
    <message>
        <source>%1
subnormal
%2 … %3</source>
        <translation>%1
次正规数
%2 … %3</translation>
    </message>
    <message>
        <source>%1 normal
%2 … %3</source>
        <translation>%1 正规数
%2 … %3</translation>
    </message>
    <message>
        <source>%1 → inf
|g| ≥ %2
(max %3)</source>
        <translation>%1 → inf
|g| ≥ %2
（最大值 %3）</translation>
    </message>
    <message>
        <source>%1 → ±%2
|g| ≥ %3
(saturates)</source>
        <translation>%1 → ±%2
|g| ≥ %3
（饱和）</translation>
    </message>
    <message>
        <source>%1 normal %2 … %3</source>
        <translation>%1 正规数 %2 … %3</translation>
    </message>
    <message>
        <source>%1 subnormal</source>
        <translation>%1 次正规数</translation>
    </message>
    <message>
        <source>%1 → 0</source>
        <translation>%1 → 0</translation>
    </message>
    <message>
        <source>All layers (parameter gradients)</source>
        <translation>所有层（参数梯度）</translation>
    </message>
    <message>
        <source>All activation gradients</source>
        <translation>所有激活梯度</translation>
    </message>
    <message>
        <source>&lt;span style=&apos;color:%1&apos;&gt;■&lt;/span&gt; &lt;b&gt;%2&lt;/b&gt; (step %3): %4 values · zero %5 · +inf %6 · −inf %7 · NaN %8 · would flush in %11: %9 (%10%)</source>
        <translation>&lt;span style=&apos;color:%1&apos;&gt;■&lt;/span&gt; &lt;b&gt;%2&lt;/b&gt;（第 %3 步）：%4 个值 · 零 %5 · +inf %6 · −inf %7 · NaN %8 · 在 %11 中将被冲为 0 %9（%10%）</translation>
    </message>
    <message>
        <source>No instrumented step yet (see &quot;Instrument every&quot; in the run panel).</source>
        <translation>还没有采样步骤（见运行面板中的“采样间隔”）。</translation>
    </message>
    <message>
        <source>bin %1: |g| in [%2, %3)</source>
        <translation>区间 %1：|g| 在 [%2, %3) 内</translation>
    </message>
    <message>
        <source>exact
zeros</source>
        <translation>精确
零值</translation>
    </message>
    <message>
        <source>exact zeros (g == 0)</source>
        <translation>精确的零（g == 0）</translation>
    </message>
    <message>
        <source>Run to see the gradient exponents.</source>
        <translation>运行后可在此查看梯度指数。</translation>
    </message>
    <message>
        <source>%1 (quantised, %2)</source>
        <translation>%1（量化为 %2）</translation>
    </message>
    <message>
        <source>%1: %2 block windows, block scales %3 … %4</source>
        <translation>%1：%2 各块的窗口，块 scale %3 … %4</translation>
    </message>
    <message>
        <source>%1: %2 window at scale %3</source>
        <translation>%1：scale 为 %3 时的 %2 窗口</translation>
    </message>
    <message>
        <source>→ 0</source>
        <translation>→ 0</translation>
    </message>
    <message>
        <source>→ ±%1</source>
        <translation>→ ±%1</translation>
    </message>
    <message>
        <source>block scales %1 … %2</source>
        <translation>块 scale %1 … %2</translation>
    </message>
    <message>
        <source>scale %1</source>
        <translation>scale %1</translation>
    </message>
    <message>
        <source>&lt;span style=&apos;color:%1&apos;&gt;■&lt;/span&gt; &lt;b&gt;%2&lt;/b&gt; (step %3): %4 values · %5 · amax %6 · &lt;b&gt;saturated %7&lt;/b&gt; · &lt;b&gt;flushed to 0 %8&lt;/b&gt;</source>
        <translation>&lt;span style=&apos;color:%1&apos;&gt;■&lt;/span&gt; &lt;b&gt;%2&lt;/b&gt;（第 %3 步）：%4 个值 · %5 · amax %6 · &lt;b&gt;饱和 %7&lt;/b&gt; · &lt;b&gt;冲成 0 %8&lt;/b&gt;</translation>
    </message>
    <message>
        <source>Click a bar (or ←/→ and Enter): its bin&apos;s value in the number formats panel</source>
        <translation>点击柱子（或用 ←/→ 加 Enter）：在数值格式面板中查看该区间的值</translation>
    </message>
    <message>
        <source>%1 at step %2: %3 of %4 values</source>
        <translation>%1，第 %2 步：%4 个值中的 %3 个</translation>
    </message>
    <message>
        <source>, in %1</source>
        <translation>，分布在 %1</translation>
    </message>
    <message>
        <source>Gradient histogram</source>
        <translation>梯度直方图</translation>
    </message>
    <message>
        <source>Histogram of %1</source>
        <translation>%1 的直方图</translation>
    </message>
    <message>
        <source>%1, exact zeros</source>
        <translation>%1，精确的零</translation>
    </message>
    <message>
        <source>%1, bin %2: %3 ≤ |x| &lt; %4. Shown is the bin&apos;s lower edge: the engine counts the values of each bin exactly but does not keep them.</source>
        <translation>%1，区间 %2：%3 ≤ |x| &lt; %4。显示的是该区间的下边界：引擎精确统计每个区间的值的个数，但不保存这些值本身。</translation>
    </message>
    <message numerus="yes">
        <source>%n more</source>
        <translation>
            <numerusform>另外 %n 个</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>LanguageManager</name>
    <message>
        <source>Unknown language &apos;%1&apos; (available: %2)</source>
        <translation>未知语言“%1”（可用：%2）</translation>
    </message>
    <message>
        <source>The Chinese translation (%1) could not be loaded.</source>
        <translation>无法加载中文翻译（%1）。</translation>
    </message>
    <message>
        <source>&amp;Language</source>
        <translation>语言(&amp;L)</translation>
    </message>
</context>
<context>
    <name>LessonBrowser</name>
    <message>
        <source>Number formats: range versus precision</source>
        <translation>数值格式：范围与精度</translation>
    </message>
    <message>
        <source>Memory and bandwidth per data type</source>
        <translation>各数据类型的内存与带宽</translation>
    </message>
    <message>
        <source>model.half() versus mixed precision</source>
        <translation>model.half() 与混合精度</translation>
    </message>
    <message>
        <source>Autocast picks a precision per operation</source>
        <translation>autocast 为每个算子选择精度</translation>
    </message>
    <message>
        <source>Gradient underflow</source>
        <translation>梯度下溢</translation>
    </message>
    <message>
        <source>Loss scaling and GradScaler</source>
        <translation>Loss scaling 与 GradScaler</translation>
    </message>
    <message>
        <source>BF16 needs no GradScaler</source>
        <translation>BF16 不需要 GradScaler</translation>
    </message>
    <message>
        <source>Gradient clipping with a scaler</source>
        <translation>使用 scaler 时的梯度裁剪</translation>
    </message>
    <message>
        <source>What mixed precision does to memory</source>
        <translation>混合精度对内存的影响</translation>
    </message>
    <message>
        <source>Measuring whether it helps</source>
        <translation>测量是否真的有效</translation>
    </message>
    <message>
        <source>Section %1</source>
        <translation>第 %1 节</translation>
    </message>
    <message>
        <source>Lessons</source>
        <translation>课程</translation>
    </message>
    <message>
        <source>Each lesson follows one section of the mixed-precision chapter. Open one to load its configuration and bring its panels forward.</source>
        <translation>每一课对应混合精度一章中的一节。打开一课会载入它的配置，并把相关面板调到前面。</translation>
    </message>
    <message>
        <source>&amp;Open</source>
        <translation>打开(&amp;O)</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <source>§%1 %2</source>
        <translation>§%1 %2</translation>
    </message>
</context>
<context>
    <name>LessonPanel</name>
    <message>
        <source>Answered at step %1: %2</source>
        <translation>已在第 %1 步得到回答：%2</translation>
    </message>
    <message>
        <source>Not answered in this configuration: %1</source>
        <translation>在当前配置下得不到回答：%1</translation>
    </message>
    <message>
        <source>Not answered yet: %1</source>
        <translation>尚未得到回答：%1</translation>
    </message>
    <message>
        <source>The items whose claims answer the question: ✓ holds, ✗ does not hold, … waiting, ↺ held and stopped, – not checked in this run.</source>
        <translation>其断言回答这个问题的观察要点：✓ 成立，✗ 不成立，… 等待中，↺ 曾经成立后不再成立，– 本次运行未检查。</translation>
    </message>
    <message>
        <source>What to look for (click to show the panel):</source>
        <translation>观察要点（点击可显示对应面板）：</translation>
    </message>
    <message>
        <source>&amp;Configuration:</source>
        <translation>配置(&amp;C)：</translation>
    </message>
    <message>
        <source>Inject overflow into the next step</source>
        <translation>在下一步注入溢出</translation>
    </message>
    <message>
        <source>Puts an infinity into the next step&apos;s gradients: a GradScaler skips that step and halves its scale; modes without a scaler diverge.</source>
        <translation>在下一步的梯度中放入一个无穷大：GradScaler 会跳过该步并把 scale 减半；没有 scaler 的模式会发散。</translation>
    </message>
    <message>
        <source>◀ Previous</source>
        <translation>◀ 上一课</translation>
    </message>
    <message>
        <source>Previous lesson (%1)</source>
        <translation>上一课（%1）</translation>
    </message>
    <message>
        <source>Next ▶</source>
        <translation>下一课 ▶</translation>
    </message>
    <message>
        <source>Next lesson (%1)</source>
        <translation>下一课（%1）</translation>
    </message>
    <message>
        <source>All lessons…</source>
        <translation>全部课程…</translation>
    </message>
    <message>
        <source>Next Lesson</source>
        <translation>下一课</translation>
    </message>
    <message>
        <source>Previous Lesson</source>
        <translation>上一课</translation>
    </message>
    <message>
        <source>No lesson open</source>
        <translation>未打开课程</translation>
    </message>
    <message>
        <source>Open a lesson from the lesson browser.</source>
        <translation>请从课程浏览器中打开一课。</translation>
    </message>
    <message>
        <source>Chapter section §%1</source>
        <translation>章节 §%1</translation>
    </message>
    <message>
        <source>Lesson %1 of %2</source>
        <translation>第 %1 课，共 %2 课</translation>
    </message>
    <message numerus="yes">
        <source>(%n parts)</source>
        <translation>
            <numerusform>（%n 个部分）</numerusform>
        </translation>
    </message>
    <message>
        <source>Checked against the run: %1</source>
        <translation>对照本次运行检查：%1</translation>
    </message>
    <message>
        <source>not checked: this run does not train %1</source>
        <translation>未检查：本次运行没有训练 %1</translation>
    </message>
    <message>
        <source>Question: %1</source>
        <translation>问题：%1</translation>
    </message>
    <message>
        <source>What to look for (click to show the panel), %1 of %2 hold now:</source>
        <translation>观察要点（点击可显示对应面板），目前 %2 项中有 %1 项成立：</translation>
    </message>
</context>
<context>
    <name>LessonWorkspace</name>
    <message>
        <source>&amp;Lessons</source>
        <translation>课程(&amp;L)</translation>
    </message>
    <message>
        <source>&amp;Browse Lessons…</source>
        <translation>浏览课程(&amp;B)…</translation>
    </message>
    <message>
        <source>&amp;Save Lesson Layout</source>
        <translation>保存课程布局(&amp;S)</translation>
    </message>
    <message>
        <source>This lesson opens with the panels arranged as they are now.</source>
        <translation>本课以后打开时，面板按现在的样子排列。</translation>
    </message>
    <message>
        <source>&amp;Reset Lesson Layout</source>
        <translation>重置课程布局(&amp;R)</translation>
    </message>
    <message>
        <source>Forget the saved arrangement: the lesson opens with its own layout again.</source>
        <translation>忘掉保存的排列：本课重新使用它自带的布局。</translation>
    </message>
    <message>
        <source>L&amp;eave Lessons</source>
        <translation>退出课程(&amp;E)</translation>
    </message>
    <message>
        <source>Close the lesson and bring back your own arrangement of the panels.</source>
        <translation>关闭课程，恢复你自己的面板排列。</translation>
    </message>
    <message>
        <source>Lesson</source>
        <translation>课程</translation>
    </message>
    <message>
        <source>Gradient norm and clipping</source>
        <translation>梯度范数与裁剪</translation>
    </message>
    <message>
        <source>Step time</source>
        <translation>每步时间</translation>
    </message>
</context>
<context>
    <name>LossPlot</name>
    <message>
        <source>Log y</source>
        <translation>对数 y 轴</translation>
    </message>
    <message>
        <source>Logarithmic loss axis: late training differences stay visible.</source>
        <translation>对数 loss 轴：训练后期的差别也能看清。</translation>
    </message>
    <message>
        <source>Smoothing</source>
        <translation>平滑</translation>
    </message>
    <message>
        <source>Exponential moving average of the loss (0 = raw values). NaN/Inf are never averaged away.</source>
        <translation>loss 的指数移动平均（0 = 原始值）。NaN/Inf 永远不会被平均掉。</translation>
    </message>
    <message>
        <source>step</source>
        <translation>步</translation>
    </message>
    <message>
        <source>loss (cross-entropy, nats)</source>
        <translation>loss（交叉熵，单位 nats）</translation>
    </message>
    <message>
        <source>✕ %1 diverged at step %2</source>
        <translation>✕ %1 在第 %2 步发散</translation>
    </message>
    <message>
        <source>Run to see each mode&apos;s loss, step by step.</source>
        <translation>运行后可在此逐步查看每种模式的 loss。</translation>
    </message>
</context>
<context>
    <name>MainWindow</name>
    <message>
        <source>AmpScope run</source>
        <translation>AmpScope 运行</translation>
    </message>
    <message>
        <source>AmpScope</source>
        <translation>AmpScope</translation>
    </message>
    <message>
        <source>Number formats</source>
        <translation>数值格式</translation>
    </message>
    <message>
        <source>&amp;File</source>
        <translation>文件(&amp;F)</translation>
    </message>
    <message>
        <source>&amp;Quit</source>
        <translation>退出(&amp;Q)</translation>
    </message>
    <message>
        <source>&amp;View</source>
        <translation>视图(&amp;V)</translation>
    </message>
    <message>
        <source>&amp;Reset layout</source>
        <translation>重置布局(&amp;R)</translation>
    </message>
    <message>
        <source>&amp;Focus on Panel</source>
        <translation>聚焦面板(&amp;F)</translation>
    </message>
    <message>
        <source>Show the panel with the keyboard focus (or under the mouse) alone in the window; again to go back (F6).</source>
        <translation>只在窗口中显示有键盘焦点（或鼠标所在）的面板；再按一次返回 (F6)。</translation>
    </message>
    <message>
        <source>Show every panel again, in its original place.</source>
        <translation>重新显示所有面板，并放回原来的位置。</translation>
    </message>
    <message>
        <source>&amp;Help</source>
        <translation>帮助(&amp;H)</translation>
    </message>
    <message>
        <source>&amp;About AmpScope</source>
        <translation>关于 AmpScope(&amp;A)</translation>
    </message>
    <message>
        <source>About &amp;Qt</source>
        <translation>关于 &amp;Qt</translation>
    </message>
    <message>
        <source>&amp;Analysis</source>
        <translation>分析(&amp;A)</translation>
    </message>
    <message>
        <source>Precision &amp;Advice…</source>
        <translation>精度建议(&amp;A)…</translation>
    </message>
    <message>
        <source>Which layers hold FP16, BF16 or FP8 safely and which to keep in higher precision, with the evidence, for this run, a followed run or a file (Ctrl+Shift+A).</source>
        <translation>哪些层可以安全地使用 FP16、BF16 或 FP8，哪些应保留更高精度，并附证据；适用于本运行、跟踪的运行或文件（Ctrl+Shift+A）。</translation>
    </message>
</context>
<context>
    <name>MemoryCalculatorWidget</name>
    <message>
        <source>How much memory a tensor of N elements takes in each dtype. Halving the bytes per element halves the memory traffic of a bandwidth-bound operator. 1 GiB = 2&lt;sup&gt;30&lt;/sup&gt; bytes.</source>
        <translation>N 个元素的张量在各 dtype 下占用多少内存。每个元素的字节数减半，受带宽限制的算子的内存搬运量也减半。1 GiB = 2&lt;sup&gt;30&lt;/sup&gt; 字节。</translation>
    </message>
    <message>
        <source>&amp;Elements:</source>
        <translation>元素个数(&amp;E)：</translation>
    </message>
    <message>
        <source>e.g. 1e9, 7e9, 1,000,000</source>
        <translation>例如 1e9、7e9、1,000,000</translation>
    </message>
    <message>
        <source>Number of elements: 1e9, 7e9 (a 7B-parameter model), 1,000,000 or 1_000_000.</source>
        <translation>元素个数：1e9、7e9（70 亿参数的模型）、1,000,000 或 1_000_000。</translation>
    </message>
    <message>
        <source>dtype</source>
        <translation>dtype</translation>
    </message>
    <message>
        <source>bytes / element</source>
        <translation>字节 / 元素</translation>
    </message>
    <message>
        <source>bytes</source>
        <translation>字节</translation>
    </message>
    <message>
        <source>GiB</source>
        <translation>GiB</translation>
    </message>
    <message>
        <source>Relative size: %1 of FP64&apos;s 8 bytes.</source>
        <translation>相对大小：FP64 的 8 字节的 %1。</translation>
    </message>
    <message>
        <source>TF32 is a compute format: tensors stay FP32 in memory (4 bytes).</source>
        <translation>TF32 是一种计算格式：张量在内存中仍是 FP32（4 字节）。</translation>
    </message>
    <message>
        <source>%1 elements</source>
        <translation>%1 个元素</translation>
    </message>
    <message>
        <source>Copy as CSV</source>
        <translation>复制为 CSV</translation>
    </message>
    <message>
        <source>Copy the table to the clipboard as comma-separated values.</source>
        <translation>把表格以逗号分隔值的形式复制到剪贴板。</translation>
    </message>
    <message>
        <source>Export CSV…</source>
        <translation>导出 CSV…</translation>
    </message>
    <message>
        <source>Save the table as a CSV file (UTF-8).</source>
        <translation>把表格保存为 CSV 文件（UTF-8）。</translation>
    </message>
</context>
<context>
    <name>MemoryLedgerTable</name>
    <message>
        <source>Measured by a counting CPU allocator at the last step of each mode.</source>
        <translation>由计数式 CPU 分配器在每种模式的最后一步测得。</translation>
    </message>
    <message>
        <source>Refresh</source>
        <translation>刷新</translation>
    </message>
    <message>
        <source>Parameters</source>
        <translation>参数</translation>
    </message>
    <message>
        <source>Gradients</source>
        <translation>梯度</translation>
    </message>
    <message>
        <source>Optimizer state</source>
        <translation>优化器状态</translation>
    </message>
    <message>
        <source>Activations</source>
        <translation>激活值</translation>
    </message>
    <message>
        <source>Temporaries</source>
        <translation>临时缓冲区</translation>
    </message>
    <message>
        <source>Peak</source>
        <translation>峰值</translation>
    </message>
    <message>
        <source>%1 bytes</source>
        <translation>%1 字节</translation>
    </message>
</context>
<context>
    <name>ModePalette</name>
    <message>
        <source>FP32</source>
        <translation>FP32</translation>
    </message>
    <message>
        <source>FP16 AMP + GradScaler</source>
        <translation>FP16 AMP + GradScaler</translation>
    </message>
    <message>
        <source>FP16 AMP, no scaler</source>
        <translation>FP16 AMP，无 scaler</translation>
    </message>
    <message>
        <source>BF16 AMP</source>
        <translation>BF16 AMP</translation>
    </message>
    <message>
        <source>FP16 pure (model.half())</source>
        <translation>纯 FP16（model.half()）</translation>
    </message>
    <message>
        <source>BF16 pure</source>
        <translation>纯 BF16</translation>
    </message>
    <message>
        <source>FP8 delayed scaling</source>
        <translation>FP8 延迟缩放</translation>
    </message>
    <message>
        <source>FP8 current scaling</source>
        <translation>FP8 即时缩放</translation>
    </message>
    <message>
        <source>MXFP8 (32-value blocks)</source>
        <translation>MXFP8（32 值分块）</translation>
    </message>
    <message>
        <source>NVFP4 (16-value blocks)</source>
        <translation>NVFP4（16 值分块）</translation>
    </message>
    <message>
        <source>Precision plan</source>
        <translation>精度方案</translation>
    </message>
</context>
<context>
    <name>NumberFormatsPanel</name>
    <message>
        <source>Bits &amp;&amp; values</source>
        <translation>位与数值</translation>
    </message>
    <message>
        <source>Range</source>
        <translation>范围</translation>
    </message>
    <message>
        <source>Limits (finfo)</source>
        <translation>极限值（finfo）</translation>
    </message>
    <message>
        <source>Underflow</source>
        <translation>下溢</translation>
    </message>
    <message>
        <source>Memory</source>
        <translation>内存</translation>
    </message>
    <message>
        <source>The entry value in every format, bit by bit.</source>
        <translation>输入值在每种格式中的逐位表示。</translation>
    </message>
    <message>
        <source>Where each format&apos;s values live on a log2 axis, and why FP16 needs loss scaling and BF16 does not.</source>
        <translation>各格式的数值在 log2 轴上的分布，以及为什么 FP16 需要 loss scaling 而 BF16 不需要。</translation>
    </message>
    <message>
        <source>torch.finfo for every format.</source>
        <translation>每种格式的 torch.finfo。</translation>
    </message>
    <message>
        <source>The chapter&apos;s gradient-underflow table.</source>
        <translation>章节中的梯度下溢表。</translation>
    </message>
    <message>
        <source>Bytes and GiB of N elements per format.</source>
        <translation>每种格式下 N 个元素的字节数和 GiB。</translation>
    </message>
    <message>
        <source>&amp;Value:</source>
        <translation>数值(&amp;V)：</translation>
    </message>
    <message>
        <source>1e-8, 65504, -0, inf, nan, 0x3c00 …</source>
        <translation>1e-8、65504、-0、inf、nan、0x3c00 …</translation>
    </message>
    <message>
        <source>A number (0.1, 1e-8, 65504, -0, inf, nan) or a bit pattern in hex (0x3c00) or binary (0b0011110000000000), read in the format chosen on the right. Every row below shows this value in its format.</source>
        <translation>一个数（0.1、1e-8、65504、-0、inf、nan），或十六进制（0x3c00）、二进制（0b0011110000000000）的位模式，按右侧选择的格式解读。下面每一行显示该值在对应格式中的样子。</translation>
    </message>
    <message>
        <source>bit patterns in:</source>
        <translation>位模式格式：</translation>
    </message>
    <message>
        <source>The format a typed bit pattern (0x…, 0b…) is read in.</source>
        <translation>输入的位模式（0x…、0b…）按哪种格式解读。</translation>
    </message>
    <message>
        <source>Try:</source>
        <translation>试试：</translation>
    </message>
    <message>
        <source>A small gradient: FP16 flushes it to zero, BF16 keeps it (the chapter).</source>
        <translation>一个很小的梯度：FP16 把它冲为零，BF16 能保留（见章节）。</translation>
    </message>
    <message>
        <source>Not representable in binary: every format rounds it.</source>
        <translation>无法用二进制精确表示：每种格式都要舍入。</translation>
    </message>
    <message>
        <source>FP16&apos;s max.</source>
        <translation>FP16 的最大值。</translation>
    </message>
    <message>
        <source>Halfway to the next FP16 binade: rounds to FP16 infinity.</source>
        <translation>正好在到下一个 FP16 二进制区间的一半处：舍入为 FP16 的无穷大。</translation>
    </message>
    <message>
        <source>1e-8 × 65536: the same gradient after loss scaling, safe in FP16.</source>
        <translation>1e-8 × 65536：同一个梯度经过 loss scaling 后，在 FP16 中是安全的。</translation>
    </message>
    <message>
        <source>Subnormal in FP32 and BF16.</source>
        <translation>在 FP32 和 BF16 中是次正规数。</translation>
    </message>
    <message>
        <source>Near FP32&apos;s max: BF16 rounds it to infinity.</source>
        <translation>接近 FP32 的最大值：BF16 把它舍入为无穷大。</translation>
    </message>
    <message>
        <source>Negative zero: only the sign bit is set.</source>
        <translation>负零：只有符号位为 1。</translation>
    </message>
    <message>
        <source>Infinity: exponent all ones, mantissa zero.</source>
        <translation>无穷大：指数全为 1，尾数为零。</translation>
    </message>
    <message>
        <source>Not a number.</source>
        <translation>非数（NaN）。</translation>
    </message>
    <message>
        <source>FP16 bit pattern of 1.0.</source>
        <translation>1.0 的 FP16 位模式。</translation>
    </message>
    <message>
        <source>Bits:</source>
        <translation>位：</translation>
    </message>
    <message>
        <source>sign</source>
        <translation>符号</translation>
    </message>
    <message>
        <source>exponent</source>
        <translation>指数</translation>
    </message>
    <message>
        <source>mantissa</source>
        <translation>尾数</translation>
    </message>
    <message>
        <source>(dark = 1, pale = 0)</source>
        <translation>（深色 = 1，浅色 = 0）</translation>
    </message>
    <message>
        <source>Click a bit to flip it.</source>
        <translation>点击某一位可翻转。</translation>
    </message>
    <message>
        <source>exact</source>
        <translation>精确</translation>
    </message>
    <message>
        <source>rounded</source>
        <translation>已舍入</translation>
    </message>
    <message>
        <source>subnormal</source>
        <translation>次正规数</translation>
    </message>
    <message>
        <source>flushed to 0</source>
        <translation>冲为 0</translation>
    </message>
    <message>
        <source>overflow</source>
        <translation>溢出</translation>
    </message>
    <message>
        <source>&lt;p&gt;&lt;b&gt;Why FP16 needs loss scaling and BF16 does not.&lt;/b&gt; Gradients of a typical network are tiny: most lie between 2&lt;sup&gt;&amp;minus;40&lt;/sup&gt; and 2&lt;sup&gt;&amp;minus;10&lt;/sup&gt; (green band). FP16&apos;s normal range starts at %1 (2&lt;sup&gt;&amp;minus;14&lt;/sup&gt;), its subnormals end at %2 (2&lt;sup&gt;&amp;minus;24&lt;/sup&gt;): the left part of the band becomes &lt;b&gt;zero&lt;/b&gt; and those parameters get no update. BF16 has FP32&apos;s 8 exponent bits, so its range reaches %3 and the whole band fits; it only pays in precision (eps %4 versus FP16&apos;s %5).&lt;/p&gt;&lt;p&gt;Loss scaling multiplies the loss, and so every gradient, by s = 2&lt;sup&gt;16&lt;/sup&gt; = 65536: the band slides 16 binades to the right, into FP16&apos;s range (1e-8 &amp;times; 65536 = 6.5536e-04), and the optimizer divides by s again in FP32.&lt;/p&gt;</source>
        <translation>&lt;p&gt;&lt;b&gt;为什么 FP16 需要 loss scaling 而 BF16 不需要。&lt;/b&gt;典型网络的梯度非常小：大多位于 2&lt;sup&gt;&amp;minus;40&lt;/sup&gt; 到 2&lt;sup&gt;&amp;minus;10&lt;/sup&gt; 之间（绿色带）。FP16 的正规数范围从 %1（2&lt;sup&gt;&amp;minus;14&lt;/sup&gt;）开始，次正规数到 %2（2&lt;sup&gt;&amp;minus;24&lt;/sup&gt;）为止：绿色带的左侧部分会变成&lt;b&gt;零&lt;/b&gt;，对应的参数得不到更新。BF16 拥有 FP32 的 8 位指数，范围可达 %3，整条带都能容纳；它只在精度上付出代价（eps 为 %4，FP16 为 %5）。&lt;/p&gt;&lt;p&gt;Loss scaling 把 loss，也就是每个梯度，乘以 s = 2&lt;sup&gt;16&lt;/sup&gt; = 65536：整条带向右移动 16 个二进制区间，进入 FP16 的范围（1e-8 &amp;times; 65536 = 6.5536e-04），优化器再在 FP32 中除以 s。&lt;/p&gt;</translation>
    </message>
    <message>
        <source>Type a value, e.g. 1e-8 or 0x3c00.</source>
        <translation>输入一个值，例如 1e-8 或 0x3c00。</translation>
    </message>
    <message>
        <source>%1 read as %2 = &lt;b&gt;%3&lt;/b&gt;</source>
        <translation>%1 按 %2 解读 = &lt;b&gt;%3&lt;/b&gt;</translation>
    </message>
    <message>
        <source>as a double: %1 &amp;nbsp;·&amp;nbsp; log&lt;sub&gt;2&lt;/sub&gt;|x| = %2</source>
        <translation>作为 double：%1 &amp;nbsp;·&amp;nbsp; log&lt;sub&gt;2&lt;/sub&gt;|x| = %2</translation>
    </message>
    <message>
        <source>= &lt;b&gt;%1&lt;/b&gt;</source>
        <translation>= &lt;b&gt;%1&lt;/b&gt;</translation>
    </message>
</context>
<context>
    <name>OpDtypeTable</name>
    <message>
        <source>Start or pause a run to see which op ran in which dtype.</source>
        <translation>开始或暂停一次运行，即可查看每个算子以哪种 dtype 执行。</translation>
    </message>
    <message>
        <source>Refresh</source>
        <translation>刷新</translation>
    </message>
    <message>
        <source>Run one forward pass per mode (no update) and record each op&apos;s dtypes. Available while paused or finished.</source>
        <translation>为每种模式运行一次前向传播（不更新参数），记录每个算子的 dtype。在暂停或结束时可用。</translation>
    </message>
    <message>
        <source>Op</source>
        <translation>算子</translation>
    </message>
    <message>
        <source>Where</source>
        <translation>位置</translation>
    </message>
    <message>
        <source> (emulated)</source>
        <translation>（模拟）</translation>
    </message>
    <message>
        <source>input %1, output %2%3</source>
        <translation>输入 %1，输出 %2%3</translation>
    </message>
    <message>
        <source>; emulated: FP32 arithmetic rounded exactly (RNE) to the low-precision format</source>
        <translation>；模拟：FP32 运算，精确舍入（RNE）到低精度格式</translation>
    </message>
    <message>
        <source>No op-dtype report available yet.</source>
        <translation>尚无算子 dtype 报告。</translation>
    </message>
    <message>
        <source>One forward pass per mode. Italic: emulated dtype (FP32 arithmetic with exact rounding at autocast&apos;s cast points).</source>
        <translation>每种模式一次前向传播。斜体：模拟的 dtype（FP32 运算，在 autocast 的转换点精确舍入）。</translation>
    </message>
    <message>
        <source>One forward pass per mode.</source>
        <translation>每种模式一次前向传播。</translation>
    </message>
</context>
<context>
    <name>PlotExporter</name>
    <message>
        <source>There is no plot to export.</source>
        <translation>没有可导出的图表。</translation>
    </message>
</context>
<context>
    <name>PlotPanel</name>
    <message>
        <source>Follow latest</source>
        <translation>跟随最新</translation>
    </message>
    <message>
        <source>Keep the whole run in view as steps arrive. Zooming or panning turns it off.</source>
        <translation>随着新步骤到来，始终显示整个运行过程。缩放或平移会关闭此项。</translation>
    </message>
    <message>
        <source>step %1</source>
        <translation>第 %1 步</translation>
    </message>
    <message>
        <source>Run to see data here.</source>
        <translation>运行后可在此查看数据。</translation>
    </message>
</context>
<context>
    <name>PresenterMode</name>
    <message>
        <source>&amp;Full Screen</source>
        <translation>全屏(&amp;F)</translation>
    </message>
    <message>
        <source>&amp;Presenter Scaling (Larger Text and Lines)</source>
        <translation>演示放大（更大的文字和线条）(&amp;P)</translation>
    </message>
    <message>
        <source>&amp;Hide Controls</source>
        <translation>隐藏控件(&amp;H)</translation>
    </message>
    <message>
        <source>Leave Presenter View</source>
        <translation>退出演示视图</translation>
    </message>
    <message>
        <source>&amp;Presenter</source>
        <translation>演示(&amp;P)</translation>
    </message>
</context>
<context>
    <name>RangeStripWidget</name>
    <message>
        <source>Each bar is one format on a log2 axis: pale orange the subnormal range (fewer significant bits), blue the normal range, the tick at the right end its max. The green band is where gradients of a typical network live; values left of a bar become zero.</source>
        <translation>每一条代表一种格式在 log2 轴上的范围：浅橙色是次正规数范围（有效位更少），蓝色是正规数范围，右端的刻度是最大值。绿色带是典型网络梯度所在的位置；落在某条左侧的值会变成零。</translation>
    </message>
    <message>
        <source>subnormal range</source>
        <translation>次正规数范围</translation>
    </message>
    <message>
        <source>normal range</source>
        <translation>正规数范围</translation>
    </message>
    <message>
        <source>typical gradients %1 … %2</source>
        <translation>典型梯度 %1 … %2</translation>
    </message>
    <message>
        <source>current value</source>
        <translation>当前值</translation>
    </message>
    <message>
        <source>… from %1</source>
        <translation>… 从 %1 起</translation>
    </message>
    <message>
        <source>max ≈ %1 …</source>
        <translation>最大值 ≈ %1 …</translation>
    </message>
    <message>
        <source>max %1</source>
        <translation>最大值 %1</translation>
    </message>
    <message>
        <source>✓ holds all typical gradients</source>
        <translation>✓ 可容纳所有典型梯度</translation>
    </message>
    <message>
        <source>✗ below %1 → 0: loss scaling</source>
        <translation>✗ 低于 %1 → 0：需要 loss scaling</translation>
    </message>
    <message>
        <source>✗ gradients → 0: needs scaling</source>
        <translation>✗ 梯度 → 0：需要缩放</translation>
    </message>
    <message>
        <source>|value| on a log2 axis</source>
        <translation>log2 轴上的 |数值|</translation>
    </message>
    <message>
        <source>|x| = %1 ≈ %2</source>
        <translation>|x| = %1 ≈ %2</translation>
    </message>
    <message>
        <source>off axis</source>
        <translation>超出坐标轴</translation>
    </message>
    <message>
        <source>✓ holds all</source>
        <translation>✓ 全部可容纳</translation>
    </message>
    <message>
        <source>✗ &lt; %1 → 0</source>
        <translation>✗ &lt; %1 → 0</translation>
    </message>
    <message>
        <source>✗ all → 0</source>
        <translation>✗ 全部 → 0</translation>
    </message>
</context>
<context>
    <name>RunController</name>
    <message>
        <source>Op-dtype report for %1 failed: %2</source>
        <translation>%1 的算子 dtype 报告失败：%2</translation>
    </message>
    <message>
        <source>The run could not start: %1</source>
        <translation>无法开始运行：%1</translation>
    </message>
</context>
<context>
    <name>RunExporter</name>
    <message>
        <source>Cannot write %1: %2</source>
        <translation>无法写入 %1：%2</translation>
    </message>
</context>
<context>
    <name>RunPanel</name>
    <message>
        <source>Model and modes</source>
        <translation>模型与模式</translation>
    </message>
    <message>
        <source>Tiny MLP (the chapter&apos;s 128-512-10)</source>
        <translation>小型 MLP（章节中的 128-512-10）</translation>
    </message>
    <message>
        <source>Deep MLP (FP16 underflow preset)</source>
        <translation>深层 MLP（FP16 下溢预设）</translation>
    </message>
    <message>
        <source>Tiny Transformer (character LM)</source>
        <translation>小型 Transformer（字符级语言模型）</translation>
    </message>
    <message>
        <source>Model</source>
        <translation>模型</translation>
    </message>
    <message>
        <source>Compare</source>
        <translation>比较</translation>
    </message>
    <message>
        <source>Training</source>
        <translation>训练</translation>
    </message>
    <message>
        <source>AdamW</source>
        <translation>AdamW</translation>
    </message>
    <message>
        <source>SGD with momentum</source>
        <translation>带动量的 SGD</translation>
    </message>
    <message>
        <source>Optimizer</source>
        <translation>优化器</translation>
    </message>
    <message>
        <source>Learning rate</source>
        <translation>学习率</translation>
    </message>
    <message>
        <source>Batch size</source>
        <translation>批大小</translation>
    </message>
    <message>
        <source>Seed</source>
        <translation>随机种子</translation>
    </message>
    <message>
        <source>Steps</source>
        <translation>步数</translation>
    </message>
    <message>
        <source>Loss weight</source>
        <translation>Loss 权重</translation>
    </message>
    <message>
        <source>Initial weight gain</source>
        <translation>初始权重倍数</translation>
    </message>
    <message>
        <source>Instrument every</source>
        <translation>采样间隔</translation>
    </message>
    <message>
        <source>GradScaler</source>
        <translation>GradScaler</translation>
    </message>
    <message>
        <source>Initial scale</source>
        <translation>初始 scale</translation>
    </message>
    <message>
        <source>Growth factor</source>
        <translation>增长系数</translation>
    </message>
    <message>
        <source>Backoff factor</source>
        <translation>回退系数</translation>
    </message>
    <message>
        <source>Growth interval</source>
        <translation>增长间隔</translation>
    </message>
    <message>
        <source>Gradient clipping</source>
        <translation>梯度裁剪</translation>
    </message>
    <message>
        <source>Off</source>
        <translation>关闭</translation>
    </message>
    <message>
        <source>After unscale_ (correct)</source>
        <translation>在 unscale_ 之后（正确）</translation>
    </message>
    <message>
        <source>Clip by norm</source>
        <translation>按范数裁剪</translation>
    </message>
    <message>
        <source>Max norm</source>
        <translation>最大范数</translation>
    </message>
    <message>
        <source>not a number</source>
        <translation>不是数字</translation>
    </message>
    <message>
        <source>not a whole number</source>
        <translation>不是整数</translation>
    </message>
    <message>
        <source>Before unscale_ (wrong)</source>
        <translation>在 unscale_ 之前（错误）</translation>
    </message>
    <message>
        <source>Clips the scaled gradients: max_norm then means nothing (the lesson&apos;s mistake).</source>
        <translation>裁剪的是放大后的梯度：此时 max_norm 失去意义（本课演示的错误）。</translation>
    </message>
    <message>
        <source>Momentum</source>
        <translation>动量</translation>
    </message>
    <message>
        <source>Weight decay</source>
        <translation>权重衰减</translation>
    </message>
    <message>
        <source>AdamW eps</source>
        <translation>AdamW eps</translation>
    </message>
    <message>
        <source>GradScaler on</source>
        <translation>启用 GradScaler</translation>
    </message>
    <message>
        <source>Also for fp16-pure</source>
        <translation>也用于 fp16-pure</translation>
    </message>
    <message>
        <source>Threads</source>
        <translation>线程数</translation>
    </message>
    <message>
        <source>Precision path</source>
        <translation>精度路径</translation>
    </message>
    <message>
        <source>Auto (the faster on this CPU)</source>
        <translation>自动（本机 CPU 上较快者）</translation>
    </message>
    <message>
        <source>Native kernels</source>
        <translation>原生内核</translation>
    </message>
    <message>
        <source>Emulated (exact rounding)</source>
        <translation>模拟（精确舍入）</translation>
    </message>
    <message>
        <source>FP8 amax history</source>
        <translation>FP8 amax 历史长度</translation>
    </message>
    <message>
        <source>FP8 margin</source>
        <translation>FP8 余量</translation>
    </message>
    <message>
        <source>FP8 scaling on</source>
        <translation>FP8 缩放开启</translation>
    </message>
    <message>
        <source>Amax spike at step</source>
        <translation>amax 尖峰所在步</translation>
    </message>
    <message>
        <source>Spike factor</source>
        <translation>尖峰系数</translation>
    </message>
    <message>
        <source>Outlier factor</source>
        <translation>离群特征系数</translation>
    </message>
    <message>
        <source>Precision plan</source>
        <translation>精度方案</translation>
    </message>
    <message>
        <source>Load Plan…</source>
        <translation>载入方案…</translation>
    </message>
    <message>
        <source>Read a precision plan (ampscope-cli advise --plan, or Save Plan… in Precision Advice) into these fields for the model shown, and compare it: checks the Precision plan mode.</source>
        <translation>把精度方案（ampscope-cli advise --plan，或精度建议中的“保存方案…”）按当前模型读入这些字段并加以比较：会勾选“精度方案”模式。</translation>
    </message>
    <message>
        <source>Load Precision Plan</source>
        <translation>载入精度方案</translation>
    </message>
    <message>
        <source>Precision plans (*.json);;All files (*)</source>
        <translation>精度方案 (*.json);;所有文件 (*)</translation>
    </message>
    <message>
        <source>Default mode</source>
        <translation>默认模式</translation>
    </message>
    <message>
        <source>Layers as text</source>
        <translation>层（文本）</translation>
    </message>
    <message>
        <source>(default)</source>
        <translation>（默认）</translation>
    </message>
    <message>
        <source>This layer&apos;s mode in the plan lane; (default): the default mode&apos;s.</source>
        <translation>此层在方案通道中的模式；（默认）：使用默认模式。</translation>
    </message>
    <message>
        <source>Check “Precision plan” under Compare to train this plan.</source>
        <translation>在“比较”中勾选“精度方案”即可训练此方案。</translation>
    </message>
    <message>
        <source>Load Plan</source>
        <translation>载入方案</translation>
    </message>
    <message>
        <source>No plan was loaded into plan.default and plan.layers (they are unchanged):
%1</source>
        <translation>没有把方案载入 plan.default 和 plan.layers（它们保持不变）：
%1</translation>
    </message>
    <message>
        <source>Loaded %1 as the plan of %2. Note: %3</source>
        <translation>已把 %1 载入为 %2 的方案。注意：%3</translation>
    </message>
    <message>
        <source>Record rounding costs</source>
        <translation>记录舍入代价</translation>
    </message>
</context>
<context>
    <name>ScalePlot</name>
    <message>
        <source>step</source>
        <translation>步</translation>
    </message>
    <message>
        <source>loss scale (log₂ axis)</source>
        <translation>loss scale（log₂ 轴）</translation>
    </message>
    <message>
        <source>No mode in this run uses a GradScaler
(fp16-amp-scaled does).</source>
        <translation>本次运行中没有模式使用 GradScaler
（fp16-amp-scaled 会使用）。</translation>
    </message>
    <message>
        <source>%1: skipped step</source>
        <translation>%1：跳过的步骤</translation>
    </message>
    <message>
        <source>%1 skipped</source>
        <translation>%1 跳过</translation>
    </message>
    <message>
        <source>Loss scale, %1 at step %2: %3 (%4). The scaler multiplies the loss, and so every gradient, by it; a power of two changes only the exponent bits.</source>
        <translation>Loss scale，%1，第 %2 步：%3（%4）。Scaler 把 loss 乘以它，因此每个梯度也都乘以它；2 的幂只改变指数位。</translation>
    </message>
</context>
<context>
    <name>SessionController</name>
    <message>
        <source>Autosave failed</source>
        <translation>自动保存失败</translation>
    </message>
    <message>
        <source>AmpScope sessions (*.%1)</source>
        <translation>AmpScope 会话 (*.%1)</translation>
    </message>
    <message>
        <source>Open Session</source>
        <translation>打开会话</translation>
    </message>
    <message>
        <source>All files (*)</source>
        <translation>所有文件 (*)</translation>
    </message>
    <message>
        <source>Save Session</source>
        <translation>保存会话</translation>
    </message>
    <message>
        <source>Export Run as CSV</source>
        <translation>将运行导出为 CSV</translation>
    </message>
    <message>
        <source>CSV files (*.csv)</source>
        <translation>CSV 文件 (*.csv)</translation>
    </message>
    <message>
        <source>Export Run as JSON</source>
        <translation>将运行导出为 JSON</translation>
    </message>
    <message>
        <source>JSON files (*.json)</source>
        <translation>JSON 文件 (*.json)</translation>
    </message>
    <message>
        <source>Reproduce in PyTorch: choose a folder</source>
        <translation>在 PyTorch 中复现：选择一个文件夹</translation>
    </message>
    <message>
        <source>&amp;Open Session…</source>
        <translation>打开会话(&amp;O)…</translation>
    </message>
    <message>
        <source>Open a saved session: its configuration and recorded plots, without retraining</source>
        <translation>打开已保存的会话：载入它的配置和记录的图表，无需重新训练</translation>
    </message>
    <message>
        <source>Open &amp;Recent</source>
        <translation>最近打开(&amp;R)</translation>
    </message>
    <message>
        <source>&amp;Save Session</source>
        <translation>保存会话(&amp;S)</translation>
    </message>
    <message>
        <source>Save the configuration and every recorded step</source>
        <translation>保存配置和记录的每一步</translation>
    </message>
    <message>
        <source>Save Session &amp;As…</source>
        <translation>会话另存为(&amp;A)…</translation>
    </message>
    <message>
        <source>&amp;Export Run Data</source>
        <translation>导出运行数据(&amp;E)</translation>
    </message>
    <message>
        <source>As &amp;CSV (one row per step and mode)…</source>
        <translation>为 &amp;CSV（每步每种模式一行）…</translation>
    </message>
    <message>
        <source>As &amp;JSON (configuration, telemetry, histograms)…</source>
        <translation>为 &amp;JSON（配置、遥测数据、直方图）…</translation>
    </message>
    <message>
        <source>Reproduce in &amp;PyTorch…</source>
        <translation>在 &amp;PyTorch 中复现…</translation>
    </message>
    <message>
        <source>Write a Python script with the initial weights and batches that reruns this experiment in PyTorch</source>
        <translation>写出一个包含初始权重和批数据的 Python 脚本，用 PyTorch 重新运行这个实验</translation>
    </message>
    <message>
        <source>Cannot open the session</source>
        <translation>无法打开会话</translation>
    </message>
    <message>
        <source>Cannot save the session</source>
        <translation>无法保存会话</translation>
    </message>
    <message>
        <source>Export failed</source>
        <translation>导出失败</translation>
    </message>
    <message>
        <source>Reproduce in PyTorch</source>
        <translation>在 PyTorch 中复现</translation>
    </message>
    <message>
        <source>Start or open a run first: the export needs its configuration.</source>
        <translation>请先开始或打开一次运行：导出需要它的配置。</translation>
    </message>
    <message numerus="yes">
        <source> and %n more</source>
        <translation>
            <numerusform>，另有 %n 个</numerusform>
        </translation>
    </message>
    <message>
        <source>The folder holds files AmpScope did not write: %1. Write into it anyway?

They are kept: only the export&apos;s own files (run.py, README.txt, weights/, batches/) are written.</source>
        <translation>该文件夹中有不是 AmpScope 写入的文件：%1。仍要写入该文件夹吗？

这些文件会保留：只写入导出自己的文件（run.py、README.txt、weights/、batches/）。</translation>
    </message>
    <message>
        <source>The export failed: %1</source>
        <translation>导出失败：%1</translation>
    </message>
    <message numerus="yes">
        <source>Wrote %n file(s) (%1 MB) to %2.

Run it with:
  python3 %3

README.txt explains each precision mode and what to expect.</source>
        <translation>
            <numerusform>已写入 %n 个文件（%1 MB）到 %2。

运行方法：
  python3 %3

README.txt 解释了每种精度模式以及预期结果。</numerusform>
        </translation>
    </message>
    <message>
        <source>Restore the last session?</source>
        <translation>恢复上次的会话？</translation>
    </message>
    <message>
        <source>AmpScope did not shut down cleanly. A session autosaved at %1 can be restored (its configuration and every step recorded until then).

Restore it?</source>
        <translation>AmpScope 上次没有正常关闭。可以恢复在 %1 自动保存的会话（包括它的配置和截至那时记录的每一步）。

要恢复吗？</translation>
    </message>
    <message>
        <source>Cannot restore the session</source>
        <translation>无法恢复会话</translation>
    </message>
    <message>
        <source>Session restored</source>
        <translation>会话已恢复</translation>
    </message>
    <message>
        <source>Save the session?</source>
        <translation>保存会话？</translation>
    </message>
    <message>
        <source>The recorded run has not been saved. Save it before closing?</source>
        <translation>记录的运行尚未保存。关闭前要保存吗？</translation>
    </message>
    <message>
        <source>Untitled</source>
        <translation>未命名</translation>
    </message>
    <message>
        <source>Clear Recent</source>
        <translation>清除最近记录</translation>
    </message>
    <message>
        <source>Opening %1…</source>
        <translation>正在打开 %1…</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message numerus="yes">
        <source>Opening %1…
Read %2 of %3 MB; decoded %n record(s).</source>
        <translation>
            <numerusform>正在打开 %1…
已读取 %2 / %3 MB；已解码 %n 条记录。</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>SessionFile</name>
    <message>
        <source>missing</source>
        <translation>缺失</translation>
    </message>
    <message>
        <source>expected a number or &quot;nan&quot;, &quot;inf&quot;, &quot;-inf&quot;</source>
        <translation>应为数字或 &quot;nan&quot;、&quot;inf&quot;、&quot;-inf&quot;</translation>
    </message>
    <message>
        <source>expected an integer</source>
        <translation>应为整数</translation>
    </message>
    <message>
        <source>must not be negative</source>
        <translation>不能为负</translation>
    </message>
    <message>
        <source>expected true or false</source>
        <translation>应为 true 或 false</translation>
    </message>
    <message>
        <source>expected a string</source>
        <translation>应为字符串</translation>
    </message>
    <message>
        <source>expected an object</source>
        <translation>应为对象</translation>
    </message>
    <message>
        <source>expected an array</source>
        <translation>应为数组</translation>
    </message>
    <message>
        <source>unknown precision mode &apos;%1&apos;</source>
        <translation>未知的精度模式“%1”</translation>
    </message>
    <message>
        <source>expected [exponent, count]</source>
        <translation>应为 [指数, 计数]</translation>
    </message>
    <message>
        <source>exponent %1 is outside [%2, %3]</source>
        <translation>指数 %1 超出 [%2, %3]</translation>
    </message>
    <message>
        <source>unknown model &apos;%1&apos;</source>
        <translation>未知的模型“%1”</translation>
    </message>
    <message>
        <source>unknown optimizer &apos;%1&apos;</source>
        <translation>未知的优化器“%1”</translation>
    </message>
    <message>
        <source>unknown clipping order &apos;%1&apos;</source>
        <translation>未知的裁剪顺序“%1”</translation>
    </message>
    <message>
        <source>must be in [1, 1024]</source>
        <translation>必须在 [1, 1024] 内</translation>
    </message>
    <message>
        <source>line %1, column %2</source>
        <translation>第 %1 行，第 %2 列</translation>
    </message>
    <message>
        <source>the file is empty</source>
        <translation>文件为空</translation>
    </message>
    <message>
        <source>not a valid session file (%1: %2); it may be damaged or cut short</source>
        <translation>不是有效的会话文件（%1：%2）；它可能已损坏或不完整</translation>
    </message>
    <message>
        <source>not an AmpScope session (the top level is not a JSON object)</source>
        <translation>不是 AmpScope 会话（顶层不是 JSON 对象）</translation>
    </message>
    <message>
        <source>not an AmpScope session (no &quot;format&quot; field)</source>
        <translation>不是 AmpScope 会话（没有 &quot;format&quot; 字段）</translation>
    </message>
    <message>
        <source>not an AmpScope session (format &quot;%1&quot;, expected &quot;%2&quot;)</source>
        <translation>不是 AmpScope 会话（格式为 &quot;%1&quot;，应为 &quot;%2&quot;）</translation>
    </message>
    <message>
        <source>not a string</source>
        <translation>不是字符串</translation>
    </message>
    <message>
        <source>field &quot;version&quot;: expected a positive integer</source>
        <translation>字段 &quot;version&quot;：应为正整数</translation>
    </message>
    <message>
        <source>written by a newer AmpScope (session format version %1; this AmpScope reads up to version %2). Update AmpScope to open it.</source>
        <translation>由更新版本的 AmpScope 写入（会话格式版本 %1；当前 AmpScope 最多读取版本 %2）。请更新 AmpScope 后再打开。</translation>
    </message>
    <message>
        <source>steps must increase (step %1 after %2)</source>
        <translation>步号必须递增（第 %1 步出现在第 %2 步之后）</translation>
    </message>
    <message>
        <source>field &quot;%1&quot;: %2</source>
        <translation>字段 &quot;%1&quot;：%2</translation>
    </message>
    <message>
        <source>Cannot write %1: %2</source>
        <translation>无法写入 %1：%2</translation>
    </message>
    <message>
        <source>Cannot open %1: %2</source>
        <translation>无法打开 %1：%2</translation>
    </message>
    <message>
        <source>it is a folder, not a session file</source>
        <translation>这是一个文件夹，不是会话文件</translation>
    </message>
    <message>
        <source>it is a named pipe, not a session file</source>
        <translation>这是一个命名管道，不是会话文件</translation>
    </message>
    <message>
        <source>it is not a regular file (a device or a socket), not a session file</source>
        <translation>这不是普通文件（而是设备或套接字），不是会话文件</translation>
    </message>
    <message>
        <source>the file holds %1 MiB; a session may hold at most %2 MiB</source>
        <translation>文件大小为 %1 MiB；会话文件最多 %2 MiB</translation>
    </message>
    <message>
        <source>the file holds more than %1 MiB, the most a session may hold</source>
        <translation>文件超过 %1 MiB，即会话文件的上限</translation>
    </message>
    <message>
        <source>opening was cancelled</source>
        <translation>已取消打开</translation>
    </message>
</context>
<context>
    <name>StepTimePlot</name>
    <message>
        <source>step</source>
        <translation>步</translation>
    </message>
    <message>
        <source>step time (ms)</source>
        <translation>每步时间（毫秒）</translation>
    </message>
    <message>
        <source>%1: %2 ms (mean of steps %3–%4)</source>
        <translation>%1：%2 毫秒（第 %3–%4 步的平均）</translation>
    </message>
    <message>
        <source>Run to see how long each step takes.</source>
        <translation>运行后可在此查看每一步的耗时。</translation>
    </message>
</context>
<context>
    <name>TableCsv</name>
    <message>
        <source>No file name given.</source>
        <translation>没有给出文件名。</translation>
    </message>
    <message>
        <source>%1 is a folder.</source>
        <translation>%1 是一个文件夹。</translation>
    </message>
    <message>
        <source>Export CSV</source>
        <translation>导出 CSV</translation>
    </message>
    <message>
        <source>CSV files (*.csv);;All files (*)</source>
        <translation>CSV 文件 (*.csv);;所有文件 (*)</translation>
    </message>
    <message>
        <source>Could not write %1:
%2</source>
        <translation>无法写入 %1：
%2</translation>
    </message>
</context>
<context>
    <name>ThemeManager</name>
    <message>
        <source>&amp;Theme</source>
        <translation>主题(&amp;T)</translation>
    </message>
    <message>
        <source>&amp;Dark</source>
        <translation>深色(&amp;D)</translation>
    </message>
    <message>
        <source>&amp;Light</source>
        <translation>浅色(&amp;L)</translation>
    </message>
</context>
<context>
    <name>TrainingWorkspace</name>
    <message>
        <source>Run</source>
        <translation>运行</translation>
    </message>
    <message>
        <source>Loss</source>
        <translation>损失</translation>
    </message>
    <message>
        <source>Loss scale</source>
        <translation>损失缩放（loss scale）</translation>
    </message>
    <message>
        <source>Gradient exponents</source>
        <translation>梯度指数</translation>
    </message>
    <message>
        <source>Exponents over time</source>
        <translation>指数随时间变化</translation>
    </message>
    <message>
        <source>Underflow</source>
        <translation>下溢</translation>
    </message>
    <message>
        <source>Op dtypes</source>
        <translation>算子 dtype</translation>
    </message>
    <message>
        <source>Memory ledger</source>
        <translation>内存账本</translation>
    </message>
    <message>
        <source>Training</source>
        <translation>训练</translation>
    </message>
    <message>
        <source>Run or pause the comparison (Space)</source>
        <translation>运行或暂停比较（空格）</translation>
    </message>
    <message>
        <source>Step</source>
        <translation>单步</translation>
    </message>
    <message>
        <source>Exactly one training step in every mode (→ or S)</source>
        <translation>每种模式恰好训练一步（→ 或 S）</translation>
    </message>
    <message>
        <source>Stop</source>
        <translation>停止</translation>
    </message>
    <message>
        <source>Stop after the step in flight; the plots keep the run</source>
        <translation>在当前步完成后停止；图表保留本次运行</translation>
    </message>
    <message>
        <source>Reset</source>
        <translation>重置</translation>
    </message>
    <message>
        <source>Stop and clear the plots; the next run starts at step 1</source>
        <translation>停止并清空图表；下次运行从第 1 步开始</translation>
    </message>
    <message>
        <source> Speed cap </source>
        <translation> 速度上限 </translation>
    </message>
    <message>
        <source>unlimited</source>
        <translation>不限</translation>
    </message>
    <message>
        <source> steps/s</source>
        <translation> 步/秒</translation>
    </message>
    <message>
        <source>At most this many steps per second, so a class can watch slowly (0 = unlimited)</source>
        <translation>每秒最多这么多步，便于课堂上慢慢观察（0 = 不限）</translation>
    </message>
    <message>
        <source>Inject overflow</source>
        <translation>注入溢出</translation>
    </message>
    <message>
        <source>Put an inf into one gradient element of every mode at the next step: the GradScaler skips the step and halves its scale; modes without a scaler diverge.</source>
        <translation>在下一步给每种模式的一个梯度元素放入 inf：GradScaler 会跳过该步并把 scale 减半；没有 scaler 的模式会发散。</translation>
    </message>
    <message>
        <source>Per mode: native (real low-precision kernels) or emulated (FP32 arithmetic with exact IEEE rounding where autocast would cast), and where a mode diverged.</source>
        <translation>每种模式：原生（真正的低精度 kernel）或模拟（FP32 运算，在 autocast 会转换的位置做精确的 IEEE 舍入），以及模式在何处发散。</translation>
    </message>
    <message>
        <source>Training failed</source>
        <translation>训练失败</translation>
    </message>
    <message>
        <source>The run stopped with an error:
%1</source>
        <translation>运行因错误而停止：
%1</translation>
    </message>
    <message>
        <source>Pause</source>
        <translation>暂停</translation>
    </message>
    <message>
        <source>Resume</source>
        <translation>继续</translation>
    </message>
    <message>
        <source>Fix the fields marked in the run panel first</source>
        <translation>请先修正运行面板中标出的字段</translation>
    </message>
    <message>
        <source>step %1</source>
        <translation>第 %1 步</translation>
    </message>
    <message>
        <source>%1 steps/s</source>
        <translation>%1 步/秒</translation>
    </message>
    <message>
        <source> · native</source>
        <translation> · 原生</translation>
    </message>
    <message>
        <source> · &lt;i&gt;emulated&lt;/i&gt;</source>
        <translation> · &lt;i&gt;模拟&lt;/i&gt;</translation>
    </message>
    <message>
        <source> &lt;span style=&apos;color:#c00000&apos;&gt;&lt;b&gt;✕ diverged @%1&lt;/b&gt;&lt;/span&gt;</source>
        <translation> &lt;span style=&apos;color:#c00000&apos;&gt;&lt;b&gt;✕ 在第 %1 步发散&lt;/b&gt;&lt;/span&gt;</translation>
    </message>
    <message>
        <source>idle</source>
        <translation>空闲</translation>
    </message>
    <message>
        <source>running</source>
        <translation>运行中</translation>
    </message>
    <message>
        <source>paused</source>
        <translation>已暂停</translation>
    </message>
    <message>
        <source>finished</source>
        <translation>已完成</translation>
    </message>
    <message>
        <source>failed</source>
        <translation>失败</translation>
    </message>
    <message>
        <source>native</source>
        <translation>原生</translation>
    </message>
    <message>
        <source>emulated</source>
        <translation>模拟</translation>
    </message>
    <message>
        <source>%1: emulated; this LibTorch has no native path</source>
        <translation>%1：模拟；此 LibTorch 没有原生路径</translation>
    </message>
    <message>
        <source>%1: emulated; this LibTorch&apos;s native kernel failed its self-check against an exact reference on this CPU (%2)</source>
        <translation>%1：模拟；此 LibTorch 的原生内核在本机 CPU 上未通过与精确参考值的自检（%2）</translation>
    </message>
    <message>
        <source>%1: native; the emulation is not bit-identical to this CPU&apos;s kernels (the loss differs from step %2 of %3 compared), so auto runs what PyTorch runs here</source>
        <translation>%1：原生；模拟与本机 CPU 的内核并非逐位一致（在比较的 %3 步中，损失从第 %2 步起不同），因此 auto 运行 PyTorch 在本机上实际运行的内核</translation>
    </message>
    <message>
        <source>: native kernel failed its self-check</source>
        <translation>：原生内核未通过自检</translation>
    </message>
    <message>
        <source>%1: %2; both paths trained bit-identically for %3 steps on this CPU, a step taking %4 µs native and %5 µs emulated (auto takes the emulation only when it is bit-identical and at least 1.1× faster)</source>
        <translation>%1：%2；两条路径在本机 CPU 上训练 %3 步逐位一致，每步原生耗时 %4 µs，模拟耗时 %5 µs（仅当模拟逐位一致且至少快 1.1× 时 auto 才选模拟）</translation>
    </message>
    <message>
        <source>%1: %2, set by precision-path</source>
        <translation>%1：%2，由 precision-path 设定</translation>
    </message>
    <message>
        <source>%1: %2 (the paths were not compared on this CPU)</source>
        <translation>%1：%2（未在本机 CPU 上比较两条路径）</translation>
    </message>
    <message>
        <source>: bit-identical, %1× faster than native on this CPU</source>
        <translation>：逐位一致，在本机 CPU 上比原生快 %1×</translation>
    </message>
    <message>
        <source>FP8 scales</source>
        <translation>FP8 scale</translation>
    </message>
</context>
<context>
    <name>UnderflowPlot</name>
    <message>
        <source>Elements that were non-zero before a rounding point and exactly zero after it (solid line).</source>
        <translation>在舍入点之前非零、之后恰好为零的元素（实线）。</translation>
    </message>
    <message>
        <source>Elements left subnormal after rounding: they kept only part of their precision (dashed line).</source>
        <translation>舍入后成为次正规数的元素：它们只保留了部分精度（虚线）。</translation>
    </message>
    <message>
        <source>Elements that were finite before a rounding point and ±inf after it (dotted line). The FP8 and FP4 modes count their quantised GEMM operands in their own formats (E4M3, E5M2, E2M1): a saturated value (clamped to the format&apos;s largest) counts as overflowed; their subnormals are not counted.</source>
        <translation>在舍入点之前有限、之后为 ±inf 的元素（点线）。FP8 和 FP4 模式统计其量化后的 GEMM 操作数，按它们自己的格式（E4M3、E5M2、E2M1）计算：饱和的值（被截断到格式的最大值）计为溢出；它们的次正规数不统计。</translation>
    </message>
    <message>
        <source>count</source>
        <translation>个数</translation>
    </message>
    <message>
        <source>% of elements</source>
        <translation>元素百分比</translation>
    </message>
    <message>
        <source>All rounding points</source>
        <translation>所有舍入点</translation>
    </message>
    <message>
        <source>step</source>
        <translation>步</translation>
    </message>
    <message>
        <source>elements per instrumented step</source>
        <translation>每个采样步骤的元素数</translation>
    </message>
    <message>
        <source>flushed</source>
        <translation>冲为零</translation>
    </message>
    <message>
        <source>subnormal</source>
        <translation>次正规数</translation>
    </message>
    <message>
        <source>overflowed</source>
        <translation>溢出</translation>
    </message>
    <message>
        <source>Layer %1</source>
        <translation>第 %1 层</translation>
    </message>
    <message>
        <source>% of elements at rounding points</source>
        <translation>舍入点处元素的百分比</translation>
    </message>
    <message>
        <source>Flushed to zero ━</source>
        <translation>冲为零 ━</translation>
    </message>
    <message>
        <source>Subnormal ╍</source>
        <translation>次正规数 ╍</translation>
    </message>
    <message>
        <source>Overflowed ┈</source>
        <translation>溢出 ┈</translation>
    </message>
    <message>
        <source>Run to see flushed and subnormal values.</source>
        <translation>运行后可在此查看被冲成 0 和 subnormal 的数值。</translation>
    </message>
    <message>
        <source>a value flushes to 0 in %1 at or below half its smallest subnormal; exactly half is a tie, and round-to-nearest-even goes to 0</source>
        <translation>在 %1 中，绝对值不超过最小 subnormal 一半的值会被冲成 0；恰好一半时两边等距，round-to-nearest-even 取 0</translation>
    </message>
    <message>
        <source>below %1&apos;s smallest normal %2 a value is subnormal: fewer significant bits</source>
        <translation>低于 %1 的最小 normal 数 %2 的值是 subnormal：有效位更少</translation>
    </message>
    <message>
        <source>from the largest finite value plus half its ulp a value saturates to ±max</source>
        <translation>从最大有限值加上其半个 ulp 起，值会饱和为 ±max</translation>
    </message>
    <message>
        <source>from the largest finite value plus half its ulp a value overflows to ±inf</source>
        <translation>从最大有限值加上其半个 ulp 起，值会上溢为 ±inf</translation>
    </message>
    <message>
        <source>Rounding points, %1 at step %2: %3 %4. Shown is a value of that class in %5: %6.</source>
        <translation>舍入点，%1，第 %2 步：%3 %4。显示的是 %5 中属于该类别的一个值：%6。</translation>
    </message>
    <message>
        <source>% of the rounded values</source>
        <translation>%（占被舍入的值）</translation>
    </message>
    <message>
        <source>values per instrumented step</source>
        <translation>个值（每个插桩步）</translation>
    </message>
</context>
<context>
    <name>UnderflowTableWidget</name>
    <message>
        <source>Small gradients, as in the chapter: an FP32 tensor cast to FP16 and to BF16. FP16&apos;s smallest subnormal is about 6e-8, so 1e-8 and 1e-9 become &lt;b&gt;0&lt;/b&gt; (the parameter gets no update). BF16 keeps FP32&apos;s exponent range: every value survives, only with fewer digits.&lt;br&gt;%1 became zero &amp;nbsp; %2 stored as a subnormal (reduced precision). Double-click a row to inspect its value.</source>
        <translation>与章节中一样的小梯度：一个 FP32 张量分别转换成 FP16 和 BF16。FP16 最小的次正规数约为 6e-8，所以 1e-8 和 1e-9 变成 &lt;b&gt;0&lt;/b&gt;（参数得不到更新）。BF16 保留了 FP32 的指数范围：每个值都保留下来，只是有效数字更少。&lt;br&gt;%1 变成零 &amp;nbsp; %2 以次正规数存储（精度降低）。双击某一行可查看它的值。</translation>
    </message>
    <message>
        <source>0</source>
        <translation>0</translation>
    </message>
    <message>
        <source>subnormal</source>
        <translation>次正规数</translation>
    </message>
    <message>
        <source>value</source>
        <translation>数值</translation>
    </message>
    <message>
        <source>FP32</source>
        <translation>FP32</translation>
    </message>
    <message>
        <source>FP16</source>
        <translation>FP16</translation>
    </message>
    <message>
        <source>BF16</source>
        <translation>BF16</translation>
    </message>
    <message>
        <source>Underflow: %1 is below half of %2&apos;s smallest subnormal and became 0.</source>
        <translation>下溢：%1 小于 %2 最小次正规数的一半，变成了 0。</translation>
    </message>
    <message>
        <source>Subnormal in %1: relative error %2.</source>
        <translation>在 %1 中是次正规数：相对误差 %2。</translation>
    </message>
    <message>
        <source>Relative error %1.</source>
        <translation>相对误差 %1。</translation>
    </message>
    <message>
        <source>Copy as CSV</source>
        <translation>复制为 CSV</translation>
    </message>
    <message>
        <source>Copy the table to the clipboard as comma-separated values, with every stored value also at full precision.</source>
        <translation>把表格以逗号分隔值的形式复制到剪贴板，每个存储值也附上完整精度。</translation>
    </message>
    <message>
        <source>Export CSV…</source>
        <translation>导出 CSV…</translation>
    </message>
    <message>
        <source>Save the table as a CSV file (UTF-8).</source>
        <translation>把表格保存为 CSV 文件（UTF-8）。</translation>
    </message>
</context>
<context>
    <name>WidgetExporter</name>
    <message>
        <source>There is nothing to export: the panel is closed or has no size.</source>
        <translation>没有可导出的内容：面板已关闭或没有尺寸。</translation>
    </message>
</context>
<context>
    <name>ampscope::ui</name>
    <message>
        <source>AmpScope: watch mixed-precision training happen.</source>
        <translation>AmpScope：观察混合精度训练的过程。</translation>
    </message>
    <message>
        <source>Show this help and exit.</source>
        <translation>显示此帮助并退出。</translation>
    </message>
    <message>
        <source>Print the versions of AmpScope, Qt and LibTorch and exit.</source>
        <translation>打印 AmpScope、Qt 和 LibTorch 的版本并退出。</translation>
    </message>
    <message>
        <source>Render the main window into the PNG &lt;file&gt; and exit.</source>
        <translation>把主窗口渲染为 PNG 文件 &lt;file&gt; 并退出。</translation>
    </message>
    <message>
        <source>file</source>
        <translation>文件</translation>
    </message>
    <message>
        <source>Window size for --screenshot, e.g. 1400x900.</source>
        <translation>--screenshot 的窗口大小，例如 1400x900。</translation>
    </message>
    <message>
        <source>WxH</source>
        <translation>宽x高</translation>
    </message>
    <message>
        <source>Device pixel ratio of the screenshot, e.g. 2 for a HiDPI image.</source>
        <translation>截图的设备像素比，例如 2 表示 HiDPI 图像。</translation>
    </message>
    <message>
        <source>S</source>
        <translation>S</translation>
    </message>
    <message>
        <source>--size must be WIDTHxHEIGHT with positive integers, e.g. 1400x900 (got &quot;%1&quot;)</source>
        <translation>--size 必须是由正整数组成的 宽x高，例如 1400x900（收到 &quot;%1&quot;）</translation>
    </message>
    <message>
        <source>--size: at most %1 pixels per edge (got &quot;%2&quot;)</source>
        <translation>--size：每边最多 %1 像素（收到 &quot;%2&quot;）</translation>
    </message>
    <message>
        <source>--scale must be a number greater than 0 and at most %1 (got &quot;%2&quot;)</source>
        <translation>--scale 必须是大于 0 且不超过 %1 的数（收到 &quot;%2&quot;）</translation>
    </message>
    <message>
        <source>--screenshot needs a file name</source>
        <translation>--screenshot 需要一个文件名</translation>
    </message>
    <message>
        <source>--size and --scale only apply to --screenshot</source>
        <translation>--size 和 --scale 只能与 --screenshot 一起使用</translation>
    </message>
    <message>
        <source>With --screenshot: train &lt;N&gt; steps (the run panel&apos;s configuration) first.</source>
        <translation>与 --screenshot 一起使用：先训练 &lt;N&gt; 步（使用运行面板中的配置）。</translation>
    </message>
    <message>
        <source>N</source>
        <translation>N</translation>
    </message>
    <message>
        <source>Open the lesson &lt;name&gt; at start (see the Lessons menu).</source>
        <translation>启动时打开课程 &lt;name&gt;（见“课程”菜单）。</translation>
    </message>
    <message>
        <source>name</source>
        <translation>名称</translation>
    </message>
    <message>
        <source>User interface language for this run: en or zh_CN.</source>
        <translation>本次运行的界面语言：en 或 zh_CN。</translation>
    </message>
    <message>
        <source>code</source>
        <translation>代码</translation>
    </message>
    <message>
        <source>Theme for this run: light or dark.</source>
        <translation>本次运行的主题：light 或 dark。</translation>
    </message>
    <message>
        <source>theme</source>
        <translation>主题</translation>
    </message>
    <message>
        <source>Start with presenter scaling (larger text and plot lines).</source>
        <translation>以演示放大模式启动（更大的文字和图表线条）。</translation>
    </message>
    <message>
        <source>--steps must be a whole number from 1 to %1 (got &quot;%2&quot;)</source>
        <translation>--steps 必须是 1 到 %1 之间的整数（收到 &quot;%2&quot;）</translation>
    </message>
    <message>
        <source>--steps only applies to --screenshot</source>
        <translation>--steps 只能与 --screenshot 一起使用</translation>
    </message>
    <message>
        <source>unknown lesson &quot;%1&quot;; the lessons are: %2</source>
        <translation>未知课程“%1”；可用的课程有：%2</translation>
    </message>
    <message>
        <source>--lang must be one of %1 (got &quot;%2&quot;)</source>
        <translation>--lang 必须是 %1 之一（收到 &quot;%2&quot;）</translation>
    </message>
    <message>
        <source>--theme must be light or dark (got &quot;%1&quot;)</source>
        <translation>--theme 必须是 light 或 dark（收到 &quot;%1&quot;）</translation>
    </message>
    <message>
        <source>Cannot export to &quot;%1&quot;: %2</source>
        <translation>无法导出到“%1”：%2</translation>
    </message>
    <message>
        <source>the PDF writer could not start</source>
        <translation>PDF 写入器无法启动</translation>
    </message>
    <message>
        <source>Exported from AmpScope</source>
        <translation>由 AmpScope 导出</translation>
    </message>
    <message>
        <source>the SVG generator could not start</source>
        <translation>SVG 生成器无法启动</translation>
    </message>
    <message>
        <source>%1: expected tcp://HOST:PORT (%2)</source>
        <translation>%1：应为 tcp://HOST:PORT（%2）</translation>
    </message>
    <message>
        <source>no port</source>
        <translation>缺少端口</translation>
    </message>
    <message>
        <source>%1: no such file</source>
        <translation>%1：文件不存在</translation>
    </message>
    <message>
        <source>%1: is a folder, not a session or a record stream</source>
        <translation>%1：这是文件夹，不是会话或记录流</translation>
    </message>
    <message>
        <source>%1: not a regular file (a named pipe, a device or a socket)</source>
        <translation>%1：不是普通文件（而是命名管道、设备或套接字）</translation>
    </message>
    <message>
        <source>%1: cannot be read: %2</source>
        <translation>%1：无法读取：%2</translation>
    </message>
    <message>
        <source>%1: neither an AmpScope session (.%2) nor a record stream (.jsonl)</source>
        <translation>%1：既不是 AmpScope 会话（.%2），也不是记录流（.jsonl）</translation>
    </message>
    <message>
        <source>files</source>
        <translation>文件</translation>
    </message>
    <message>
        <source>A saved session (.ampscope) to open, or record streams (.jsonl files, HOST:PORT or tcp://HOST:PORT) to follow; not both. Told apart by their content.</source>
        <translation>要打开的已保存会话（.ampscope），或要跟踪的记录流（.jsonl 文件、HOST:PORT 或 tcp://HOST:PORT）；二者不能同时给出。按文件内容区分。</translation>
    </message>
    <message>
        <source>[FILE…]</source>
        <translation>[文件…]</translation>
    </message>
    <message>
        <source>an empty file name</source>
        <translation>文件名为空</translation>
    </message>
    <message>
        <source>%1 and %2: one session at a time (open the other with File &gt; Open Session)</source>
        <translation>%1 和 %2：一次只能打开一个会话（另一个请用“文件 &gt; 打开会话”打开）</translation>
    </message>
    <message>
        <source>%1 is a session and %2 a record stream: open the session alone, then follow the stream with File &gt; Follow Run</source>
        <translation>%1 是会话，%2 是记录流：请单独打开会话，再用“文件 &gt; 跟踪运行”跟踪记录流</translation>
    </message>
    <message>
        <source>--lesson and a session do not go together: the session opens its own lesson</source>
        <translation>--lesson 不能与会话一起使用：会话会打开它自己的课程</translation>
    </message>
    <message>
        <source>--steps trains a new run: it does not go together with files to open</source>
        <translation>--steps 会训练一次新的运行：不能与要打开的文件一起使用</translation>
    </message>
</context>
<context>
    <name>ampscope::ui::ExportTarget</name>
    <message>
        <source>&quot;%1&quot; no longer exists; nothing was exported.</source>
        <translation>“%1”已不存在；没有导出任何内容。</translation>
    </message>
</context>
<context>
    <name>ampscope::ui::formats</name>
    <message>
        <source>OCP MX FP4: values 0 to 6, no infinity or NaN, saturates</source>
        <translation>OCP MX FP4：取值 0 到 6，没有无穷和 NaN，溢出时饱和</translation>
    </message>
    <message>
        <source>OCP MX block scale: powers of two 2^-127 to 2^127, no sign, no zero</source>
        <translation>OCP MX 块缩放因子：2^-127 到 2^127 的 2 的幂，无符号位，没有零</translation>
    </message>
    <message>
        <source>Enter a number of elements, e.g. 1e9 or 1,000,000,000.</source>
        <translation>请输入元素个数，例如 1e9 或 1,000,000,000。</translation>
    </message>
    <message>
        <source>&quot;%1&quot; is not a number. Use digits, optionally with an exponent (7e9) or thousands separators (1,000,000).</source>
        <translation>“%1”不是数字。请使用数字，可带指数（7e9）或千位分隔符（1,000,000）。</translation>
    </message>
    <message>
        <source>Too many elements: at most 1e18.</source>
        <translation>元素太多：最多 1e18。</translation>
    </message>
    <message>
        <source>The element count cannot be negative.</source>
        <translation>元素个数不能为负。</translation>
    </message>
    <message>
        <source>The element count must be a whole number.</source>
        <translation>元素个数必须是整数。</translation>
    </message>
    <message>
        <source>IEEE-754 binary64, torch.float64</source>
        <translation>IEEE-754 binary64，torch.float64</translation>
    </message>
    <message>
        <source>IEEE-754 binary32, torch.float32</source>
        <translation>IEEE-754 binary32，torch.float32</translation>
    </message>
    <message>
        <source>TensorFloat-32: FP32 range, FP16 mantissa (tensor cores)</source>
        <translation>TensorFloat-32：FP32 的范围，FP16 的尾数（tensor cores）</translation>
    </message>
    <message>
        <source>IEEE-754 binary16, torch.float16</source>
        <translation>IEEE-754 binary16，torch.float16</translation>
    </message>
    <message>
        <source>bfloat16: FP32 range, 7 mantissa bits</source>
        <translation>bfloat16：FP32 的范围，7 位尾数</translation>
    </message>
    <message>
        <source>OCP FP8, no infinity, max 448 (forward pass)</source>
        <translation>OCP FP8，没有无穷大，最大值 448（前向传播）</translation>
    </message>
    <message>
        <source>OCP FP8, FP16&apos;s range (gradients)</source>
        <translation>OCP FP8，FP16 的范围（梯度）</translation>
    </message>
    <message>
        <source>zero</source>
        <translation>零</translation>
    </message>
    <message>
        <source>subnormal</source>
        <translation>次正规数</translation>
    </message>
    <message>
        <source>normal</source>
        <translation>正规数</translation>
    </message>
    <message>
        <source>infinity</source>
        <translation>无穷大</translation>
    </message>
    <message>
        <source>NaN</source>
        <translation>NaN</translation>
    </message>
</context>
<context>
    <name>ScreenshotRenderer</name>
    <message>
        <source>the window needs %1x%2 (its panels&apos; minimum sizes), not %3x%4</source>
        <translation>窗口需要 %1x%2（各面板的最小尺寸），而不是 %3x%4</translation>
    </message>
    <message>
        <source>cannot write the screenshot: %1</source>
        <translation>无法写入截图：%1</translation>
    </message>
    <message>
        <source>Saved %1 (%2x%3 pixels)</source>
        <translation>已保存 %1（%2x%3 像素）</translation>
    </message>
    <message>
        <source>--screenshot: &quot;%1&quot; does not end in .png, .pdf, .svg, .jpg or .jpeg, the formats a screenshot is written in</source>
        <translation>--screenshot：“%1”的扩展名不是 .png、.pdf、.svg、.jpg 或 .jpeg（截图可写入的格式）</translation>
    </message>
    <message>
        <source>--scale %1 makes the %2x%3 window a %4x%5 pixel image; a screenshot has 1 to %6 pixels per edge</source>
        <translation>--scale %1 会使 %2x%3 的窗口成为 %4x%5 像素的图像；截图每边应为 1 到 %6 像素</translation>
    </message>
</context>
<context>
    <name>main</name>
    <message>
        <source>Trained %1 steps</source>
        <translation>已训练 %1 步</translation>
    </message>
    <message>
        <source>opening %1 was cancelled</source>
        <translation>已取消打开 %1</translation>
    </message>
    <message>
        <source>Opened %1: %2 recorded steps</source>
        <translation>已打开 %1：已记录 %2 步</translation>
    </message>
    <message>
        <source>AmpScope cannot open this file.</source>
        <translation>AmpScope 无法打开此文件。</translation>
    </message>
</context>
<context>
    <name>FollowController</name>
    <message>
        <source>%1 rank %2</source>
        <translation>%1 rank %2</translation>
    </message>
    <message>
        <source>%1 (saved)</source>
        <translation>%1（已保存）</translation>
    </message>
    <message>
        <source>connected</source>
        <translation>已连接</translation>
    </message>
    <message>
        <source>reconnecting</source>
        <translation>正在重连</translation>
    </message>
    <message>
        <source>waiting</source>
        <translation>等待中</translation>
    </message>
    <message>
        <source>closed</source>
        <translation>已关闭</translation>
    </message>
    <message>
        <source>stalled</source>
        <translation>已停滞</translation>
    </message>
    <message>
        <source>%1: %2 · %3 records · %4 dropped · %5 malformed</source>
        <translation>%1：%2 · %3 条记录 · 丢失 %4 条 · 格式错误 %5 条</translation>
    </message>
    <message>
        <source> · lag %1 s</source>
        <translation> · 延迟 %1 秒</translation>
    </message>
    <message>
        <source> · diverged</source>
        <translation> · 已发散</translation>
    </message>
    <message numerus="yes">
        <source>%n reconnect(s)</source>
        <translation>
            <numerusform>重连 %n 次</numerusform>
        </translation>
    </message>
    <message>
        <source>Last stream error: %1</source>
        <translation>最近一次流错误：%1</translation>
    </message>
    <message>
        <source> · %1 entries folded</source>
        <translation> · 已折叠 %1 个条目</translation>
    </message>
    <message numerus="yes">
        <source>Record budget: %n record(s) held longer lists than kept (the first %1 tensors, %2 rounding points, %3 quantized tensors and %4 names of each record are kept); folded: %5 tensor entries (%6 parameter gradients, their histograms summed), %7 rounding points (their counts summed), %8 quantized tensors and %9 non-finite names</source>
        <translation>
            <numerusform>记录预算：%n 条记录的列表超出了保留上限（每条记录保留前 %1 个张量、%2 个舍入点、%3 个量化张量和 %4 个名称）；已折叠：%5 个张量条目（其中 %6 个参数梯度，其直方图已求和）、%7 个舍入点（计数已求和）、%8 个量化张量和 %9 个非有限名称</numerusform>
        </translation>
    </message>
    <message>
        <source>%1: steps %2–%3 folded into %4 buckets (loss min, max and mean, summed counts); the last %5 steps at full resolution</source>
        <translation>%1：第 %2–%3 步已折叠为 %4 个桶（保留 loss 的最小值、最大值和均值，计数求和）；最近 %5 步保持全分辨率</translation>
    </message>
</context>
<context>
    <name>FollowDialog</name>
    <message>
        <source>Follow Run</source>
        <translation>跟踪运行</translation>
    </message>
    <message>
        <source>A record stream file the training script appends to (run.jsonl), or host:port where its probe listens (127.0.0.1:5000).</source>
        <translation>训练脚本不断追加的记录流文件（run.jsonl），或其探针监听的 host:port（127.0.0.1:5000）。</translation>
    </message>
    <message>
        <source>run.jsonl or 127.0.0.1:5000</source>
        <translation>run.jsonl 或 127.0.0.1:5000</translation>
    </message>
    <message>
        <source>Browse…</source>
        <translation>浏览…</translation>
    </message>
    <message>
        <source>the run&apos;s own name</source>
        <translation>运行自身的名称</translation>
    </message>
    <message>
        <source>Target:</source>
        <translation>目标：</translation>
    </message>
    <message>
        <source>Run label:</source>
        <translation>运行标签：</translation>
    </message>
    <message>
        <source>Not a target: %1</source>
        <translation>不是有效的目标：%1</translation>
    </message>
    <message>
        <source>Follow a record stream</source>
        <translation>跟踪记录流</translation>
    </message>
    <message>
        <source>Record streams (*.jsonl);;All files (*)</source>
        <translation>记录流 (*.jsonl);;所有文件 (*)</translation>
    </message>
</context>
<context>
    <name>FollowWorkspace</name>
    <message>
        <source>Non-finite gradients</source>
        <translation>非有限梯度</translation>
    </message>
    <message>
        <source>&amp;Follow Run…</source>
        <translation>跟踪运行(&amp;F)…</translation>
    </message>
    <message>
        <source>Plot a training script&apos;s records as they arrive (a stream file or a TCP port).</source>
        <translation>在训练脚本的记录到达时即绘制（记录流文件或 TCP 端口）。</translation>
    </message>
    <message>
        <source>Stop &amp;Following</source>
        <translation>停止跟踪(&amp;F)</translation>
    </message>
    <message>
        <source>Stop All</source>
        <translation>全部停止</translation>
    </message>
</context>
<context>
    <name>NonFiniteTable</name>
    <message>
        <source>Run</source>
        <translation>运行</translation>
    </message>
    <message>
        <source>Mode</source>
        <translation>模式</translation>
    </message>
    <message>
        <source>Step</source>
        <translation>步</translation>
    </message>
    <message>
        <source>Non-finite values</source>
        <translation>非有限值</translation>
    </message>
    <message>
        <source>Look here</source>
        <translation>先看这里</translation>
    </message>
    <message>
        <source>Parameters with inf/NaN</source>
        <translation>含 inf/NaN 的参数</translation>
    </message>
    <message>
        <source>The first parameter, in module order, whose gradient held inf or NaN: where to look first.</source>
        <translation>按模块顺序第一个梯度含 inf 或 NaN 的参数：应当最先查看的地方。</translation>
    </message>
    <message>
        <source>Gradient values that were +inf, -inf or NaN at this step (0 when the step was not instrumented).</source>
        <translation>此步中为 +inf、-inf 或 NaN 的梯度值个数（该步未插桩时为 0）。</translation>
    </message>
    <message>
        <source>Copy</source>
        <translation>复制</translation>
    </message>
    <message>
        <source>%1
Look here first: the earliest parameter in module order with inf/NaN gradients.</source>
        <translation>%1
先看这里：按模块顺序最早出现 inf/NaN 梯度的参数。</translation>
    </message>
</context>
<context>
    <name>SeriesStyle</name>
    <message>
        <source>%1: %2</source>
        <translation>%1：%2</translation>
    </message>
</context>
<context>
    <name>AdvicePanel</name>
    <message>
        <source>Save Precision Plan</source>
        <translation>保存精度方案</translation>
    </message>
    <message>
        <source>Precision plans (*.json);;All files (*)</source>
        <translation>精度方案 (*.json);;所有文件 (*)</translation>
    </message>
    <message>
        <source>Advice on a Run File</source>
        <translation>为运行文件给出建议</translation>
    </message>
    <message>
        <source>Sessions and record streams (*.ampscope *.jsonl);;All files (*)</source>
        <translation>会话与记录流 (*.ampscope *.jsonl);;所有文件 (*)</translation>
    </message>
    <message>
        <source>Precision Advice</source>
        <translation>精度建议</translation>
    </message>
    <message>
        <source>&amp;Run:</source>
        <translation>运行(&amp;R)：</translation>
    </message>
    <message>
        <source>&amp;Open File…</source>
        <translation>打开文件(&amp;O)…</translation>
    </message>
    <message>
        <source>Advice on a saved session (.ampscope) or a record stream (.jsonl): a probe&apos;s or ampscope-cli train --jsonl&apos;s.</source>
        <translation>为已保存的会话（.ampscope）或记录流（.jsonl，来自探针或 ampscope-cli train --jsonl）给出建议。</translation>
    </message>
    <message>
        <source>Re&amp;fresh</source>
        <translation>刷新(&amp;F)</translation>
    </message>
    <message>
        <source>Read the run again: a run still training or followed has more steps now.</source>
        <translation>重新读取运行：仍在训练或正被跟踪的运行现在有更多步。</translation>
    </message>
    <message>
        <source>Plan &amp;target:</source>
        <translation>方案目标(&amp;T)：</translation>
    </message>
    <message>
        <source>&amp;Judged:</source>
        <translation>评判(&amp;J)：</translation>
    </message>
    <message>
        <source>default (fp32)</source>
        <translation>默认（fp32）</translation>
    </message>
    <message>
        <source>Whose tensors are judged: by default fp32 when the run has it (the reference: what a lower precision would have to hold), else the run&apos;s first mode.</source>
        <translation>评判哪个模式的张量：默认在运行含有 fp32 时取 fp32（参照：更低精度必须容纳的数值），否则取运行的第一个模式。</translation>
    </message>
    <message>
        <source>auto (cheapest safe mode)</source>
        <translation>auto（最省且安全的模式）</translation>
    </message>
    <message>
        <source>The mode the plan aims for; a layer it does not hold is kept in higher precision. auto: the cheapest mode that holds each layer.</source>
        <translation>方案的目标模式；目标模式容纳不了的层保留更高精度。auto：每层取能容纳它的最省模式。</translation>
    </message>
    <message>
        <source>Evidence</source>
        <translation>证据</translation>
    </message>
    <message>
        <source>Plan</source>
        <translation>方案</translation>
    </message>
    <message>
        <source>GradScaler</source>
        <translation>GradScaler</translation>
    </message>
    <message>
        <source>Report</source>
        <translation>报告</translation>
    </message>
    <message>
        <source>The report as ampscope-cli advise prints it.</source>
        <translation>与 ampscope-cli advise 打印的报告相同。</translation>
    </message>
    <message>
        <source>Layer</source>
        <translation>层</translation>
    </message>
    <message>
        <source>Mode</source>
        <translation>模式</translation>
    </message>
    <message>
        <source>Kept higher</source>
        <translation>保留更高精度</translation>
    </message>
    <message>
        <source>Reason</source>
        <translation>原因</translation>
    </message>
    <message>
        <source>&amp;Copy Table</source>
        <translation>复制表格(&amp;C)</translation>
    </message>
    <message>
        <source>Copy the evidence table, in its current order, as tab-separated text.</source>
        <translation>按当前顺序把证据表复制为制表符分隔的文本。</translation>
    </message>
    <message>
        <source>&amp;Save Plan…</source>
        <translation>保存方案(&amp;S)…</translation>
    </message>
    <message>
        <source>Write the precision plan (JSON, as ampscope-cli advise --plan writes it).</source>
        <translation>写出精度方案（JSON，与 ampscope-cli advise --plan 写出的相同）。</translation>
    </message>
    <message>
        <source>Close</source>
        <translation>关闭</translation>
    </message>
    <message>
        <source>This AmpScope run</source>
        <translation>本 AmpScope 运行</translation>
    </message>
    <message>
        <source>%1 rank %2</source>
        <translation>%1 rank %2</translation>
    </message>
    <message>
        <source>Followed: %1</source>
        <translation>跟踪的运行：%1</translation>
    </message>
    <message>
        <source>File: %1</source>
        <translation>文件：%1</translation>
    </message>
    <message>
        <source>There is no followed run %1.</source>
        <translation>没有第 %1 个跟踪的运行。</translation>
    </message>
    <message>
        <source>This AmpScope run has recorded no steps yet: train (Space), open a session, or choose a followed run or a file.</source>
        <translation>本 AmpScope 运行尚未记录任何步：请训练（空格键）、打开会话，或选择跟踪的运行或文件。</translation>
    </message>
    <message>
        <source>No advice: %1</source>
        <translation>无法给出建议：%1</translation>
    </message>
    <message>
        <source>No advice for %1: %2</source>
        <translation>无法为 %1 给出建议：%2</translation>
    </message>
    <message>
        <source>The recorded loss scale</source>
        <translation>记录下的损失缩放</translation>
    </message>
    <message>
        <source>The loss scale %1 used</source>
        <translation>%1 所用的损失缩放</translation>
    </message>
    <message>
        <source>probe stream</source>
        <translation>探针记录流</translation>
    </message>
    <message>
        <source>engine stream</source>
        <translation>引擎记录流</translation>
    </message>
    <message>
        <source>session</source>
        <translation>会话</translation>
    </message>
    <message>
        <source>%1 %2</source>
        <translation>%1 %2</translation>
    </message>
    <message>
        <source>, run %1</source>
        <translation>，运行 %1</translation>
    </message>
    <message>
        <source>, run-id %1</source>
        <translation>，run-id %1</translation>
    </message>
    <message>
        <source>%1: judged mode %2, steps %3-%4, %5 instrumented</source>
        <translation>%1：评判模式 %2，第 %3-%4 步，%5 步带测量</translation>
    </message>
    <message>
        <source>Thresholds: judged from %1 instrumented steps. Unsafe: more than %2 of the non-zero values flush or more than %3 overflow at a step, or the SQNR falls more than %4 dB below the format&apos;s own (floors: %5 dB). Caution: more than %6 flush or more than %7 are subnormal.</source>
        <translation>阈值：至少 %1 个带测量的步才评判。不安全：某一步非零值中超过 %2 被冲为 0 或超过 %3 溢出，或 SQNR 比该格式自身低 %4 dB 以上（下限：%5 dB）。注意：超过 %6 被冲为 0 或超过 %7 成为次正规数。</translation>
    </message>
    <message>
        <source>Too short to judge: the most instrumented steps of any tensor is %1, at least %2 are needed (record more steps or instrument more often). No plan.</source>
        <translation>运行太短，无法评判：任一张量最多只有 %1 个带测量的步，至少需要 %2 个（请记录更多步或更频繁地测量）。没有方案。</translation>
    </message>
    <message>
        <source>%1 unsafe and %2 caution of %3 entries; %4 of %5 layers kept in higher precision.</source>
        <translation>%3 条中 %1 条不安全、%2 条需注意；%5 层中有 %4 层保留更高精度。</translation>
    </message>
    <message>
        <source>Note: %1</source>
        <translation>注：%1</translation>
    </message>
    <message>
        <source>yes</source>
        <translation>是</translation>
    </message>
    <message>
        <source>no</source>
        <translation>否</translation>
    </message>
    <message>
        <source>%1 (%2)</source>
        <translation>%1（%2）</translation>
    </message>
    <message>
        <source>Target %1. Keep in higher precision: %2.</source>
        <translation>目标 %1。保留更高精度：%2。</translation>
    </message>
    <message>
        <source>none</source>
        <translation>无</translation>
    </message>
    <message>
        <source>No plan.</source>
        <translation>没有方案。</translation>
    </message>
    <message>
        <source>No backward values recorded.</source>
        <translation>没有记录到反向传播的值。</translation>
    </message>
    <message>
        <source>A GradScaler is needed: without a scale some layer&apos;s gradients flush more than %1.</source>
        <translation>需要 GradScaler：不缩放时，某些层的梯度被冲为 0 的比例超过 %1。</translation>
    </message>
    <message>
        <source>No GradScaler needed: without a scale no layer&apos;s gradients flush more than %1.</source>
        <translation>不需要 GradScaler：不缩放时，没有哪一层的梯度被冲为 0 的比例超过 %1。</translation>
    </message>
    <message>
        <source>The smallest gradients need a scale of at least %1 (step %2); to flush at most %3 of them, %4 (step %5). The largest allow at most %6 (step %7).</source>
        <translation>最小的梯度至少需要 %1 的缩放（第 %2 步）；若只允许至多 %3 被冲为 0，则需 %4（第 %5 步）。最大的梯度至多允许 %6（第 %7 步）。</translation>
    </message>
    <message>
        <source>No single scale fits at %1 of %2 steps (first: step %3): the gradients span more binades than FP16 holds; keep such layers in BF16 or FP32.</source>
        <translation>%2 步中有 %1 步没有任何单一缩放合适（首次：第 %3 步）：梯度跨越的二进制数量级超过 FP16 所能容纳；请把这些层保留为 BF16 或 FP32。</translation>
    </message>
    <message>
        <source>2^16 (torch&apos;s default initial scale, halved where it would overflow)</source>
        <translation>2^16（torch 的默认初始缩放，会溢出时减半）</translation>
    </message>
    <message>
        <source>%1 covers the smallest gradients at every step.</source>
        <translation>%1 在每一步都能覆盖最小的梯度。</translation>
    </message>
    <message>
        <source>%1 leaves the smallest gradients below 2^-24 at %2 of %3 steps (steps %4 to %5).</source>
        <translation>%1 在 %3 步中的 %2 步让最小的梯度低于 2^-24（第 %4 到 %5 步）。</translation>
    </message>
    <message>
        <source>It covers them from step %1 on.</source>
        <translation>从第 %1 步起能覆盖它们。</translation>
    </message>
    <message>
        <source>It does not cover them at the last step.</source>
        <translation>在最后一步仍不能覆盖它们。</translation>
    </message>
    <message>
        <source>At no step do more than %1 flush.</source>
        <translation>没有任何一步超过 %1 被冲为 0。</translation>
    </message>
    <message>
        <source>More than %1 flush at %2 of %3 steps (first: step %4).</source>
        <translation>%3 步中有 %2 步超过 %1 被冲为 0（首次：第 %4 步）。</translation>
    </message>
    <message>
        <source>Within the share from step %1 on.</source>
        <translation>从第 %1 步起在该比例以内。</translation>
    </message>
    <message>
        <source>Still over it at the last step.</source>
        <translation>在最后一步仍超过该比例。</translation>
    </message>
    <message>
        <source>%1 is a folder, not a file.</source>
        <translation>%1 是文件夹，不是文件。</translation>
    </message>
    <message>
        <source>Replace File?</source>
        <translation>替换文件？</translation>
    </message>
    <message>
        <source>%1 already exists. Replace it with the precision plan?</source>
        <translation>%1 已存在。要用精度方案替换它吗？</translation>
    </message>
    <message>
        <source>Writing the precision plan to %1 failed.</source>
        <translation>把精度方案写入 %1 失败。</translation>
    </message>
    <message>
        <source>Train This &amp;Plan</source>
        <translation>训练此方案(&amp;P)</translation>
    </message>
    <message>
        <source>Put this plan into the Run panel as the Precision plan mode, beside FP32 and the plan&apos;s target mode, to train them side by side from the same initial weights.</source>
        <translation>把此方案放入运行面板，作为“精度方案”模式，与 FP32 和方案的目标模式并排，从相同的初始权重开始一起训练。</translation>
    </message>
    <message>
        <source>No plan to train: there is no advice, or the run is too short to judge.</source>
        <translation>没有可训练的方案：没有建议，或运行太短无法评判。</translation>
    </message>
    <message>
        <source>Only a plan for one of AmpScope&apos;s own models can be trained here; a followed run&apos;s model is known only from an ampscope-cli train stream&apos;s file.</source>
        <translation>这里只能训练 AmpScope 自带模型的方案；跟踪的运行只有来自 ampscope-cli train 的流文件时才知道其模型。</translation>
    </message>
    <message>
        <source>A probed script&apos;s plan cannot be trained here: AmpScope trains only its own models. Use the plan file in your script, or advise a run of AmpScope&apos;s.</source>
        <translation>探针脚本的方案无法在这里训练：AmpScope 只训练它自带的模型。请在你的脚本中使用方案文件，或为 AmpScope 的运行给出建议。</translation>
    </message>
    <message>
        <source>Train This Plan</source>
        <translation>训练此方案</translation>
    </message>
    <message>
        <source>This AmpScope run has no configuration yet.</source>
        <translation>本 AmpScope 运行还没有配置。</translation>
    </message>
    <message>
        <source>%1 does not read: %2</source>
        <translation>无法读取 %1：%2</translation>
    </message>
    <message>
        <source>%1 is not a stream of an AmpScope run (a probe&apos;s, or one without a header): its model is unknown.</source>
        <translation>%1 不是 AmpScope 运行的流（是探针的流，或没有头部的流）：其模型未知。</translation>
    </message>
    <message>
        <source>%1 holds no run of AmpScope&apos;s own (the advice is on a followed run): its model is unknown.</source>
        <translation>%1 不含 AmpScope 自己的运行（建议针对的是跟踪的运行）：其模型未知。</translation>
    </message>
    <message>
        <source>The plan cannot be trained on %1: %2</source>
        <translation>该方案无法在 %1 上训练：%2</translation>
    </message>
    <message>
        <source>Stop the Run?</source>
        <translation>停止运行？</translation>
    </message>
    <message>
        <source>A run is training. Stop it and set up the plan&apos;s run?</source>
        <translation>有一个运行正在训练。要停止它并设置该方案的运行吗？</translation>
    </message>
    <message>
        <source>The Run panel now compares %1 on %2. The plan: %3 by default; %4. Press Run (Space) to train them side by side from the same initial weights and batches.</source>
        <translation>运行面板现在在 %2 上比较 %1。方案：默认 %3；%4。按“运行”（空格键）即可从相同的初始权重和批次开始并排训练它们。</translation>
    </message>
    <message>
        <source>no layer in a mode of its own</source>
        <translation>没有层使用单独的模式</translation>
    </message>
</context>
<context>
    <name>EvidenceTableModel</name>
    <message>
        <source>ok</source>
        <translation>安全</translation>
    </message>
    <message>
        <source>caution</source>
        <translation>注意</translation>
    </message>
    <message>
        <source>unsafe</source>
        <translation>不安全</translation>
    </message>
    <message>
        <source>too few steps</source>
        <translation>步数太少</translation>
    </message>
    <message>
        <source>%1 at step %2</source>
        <translation>%1（第 %2 步）</translation>
    </message>
    <message>
        <source>%1 (steps %2-%3)</source>
        <translation>%1（第 %2-%3 步）</translation>
    </message>
    <message>
        <source>%1 dB at step %2</source>
        <translation>%1 dB（第 %2 步）</translation>
    </message>
    <message>
        <source>%1 from step %2</source>
        <translation>%1（自第 %2 步）</translation>
    </message>
    <message>
        <source>The format the tensor would be cast to (fp16+scaler: FP16 after the loss scale), or run:&lt;mode&gt; for a quantised mode as it ran.</source>
        <translation>张量将被转换成的格式（fp16+scaler：乘以损失缩放后的 FP16），或 run:&lt;模式&gt;：量化模式实际运行时的情况。</translation>
    </message>
    <message>
        <source>Instrumented steps that gave evidence, and the span they cover.</source>
        <translation>提供证据的带测量步数及其覆盖的范围。</translation>
    </message>
    <message>
        <source>The largest share of the non-zero values that rounds to zero, at one step.</source>
        <translation>单步中非零值被舍入为零的最大比例。</translation>
    </message>
    <message>
        <source>The largest share that overflows (or saturates), at one step.</source>
        <translation>单步中溢出（或饱和）的最大比例。</translation>
    </message>
    <message>
        <source>The largest share that rounds to a subnormal (fewer significant bits).</source>
        <translation>单步中舍入为次正规数（有效位更少）的最大比例。</translation>
    </message>
    <message>
        <source>The lowest signal-to-quantisation-noise ratio measured, in dB.</source>
        <translation>测得的最低信号量化噪声比（dB）。</translation>
    </message>
    <message>
        <source>Steps over an unsafe threshold, and the first of them.</source>
        <translation>超过不安全阈值的步数，以及其中的第一步。</translation>
    </message>
    <message>
        <source>Layer</source>
        <translation>层</translation>
    </message>
    <message>
        <source>Role</source>
        <translation>角色</translation>
    </message>
    <message>
        <source>Format</source>
        <translation>格式</translation>
    </message>
    <message>
        <source>Verdict</source>
        <translation>结论</translation>
    </message>
    <message>
        <source>Steps</source>
        <translation>步数</translation>
    </message>
    <message>
        <source>Flushed (worst)</source>
        <translation>冲为 0（最坏）</translation>
    </message>
    <message>
        <source>Overflowed (worst)</source>
        <translation>溢出（最坏）</translation>
    </message>
    <message>
        <source>Subnormal (worst)</source>
        <translation>次正规数（最坏）</translation>
    </message>
    <message>
        <source>Lowest SQNR</source>
        <translation>最低 SQNR</translation>
    </message>
    <message>
        <source>Unsafe steps</source>
        <translation>不安全的步</translation>
    </message>
    <message>
        <source>Reason</source>
        <translation>原因</translation>
    </message>
</context>
</TS>
