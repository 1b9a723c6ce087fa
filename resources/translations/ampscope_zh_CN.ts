<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN">
<context>
    <name>AboutDialog</name>
    <message>
        <source>About AmpScope</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&lt;h2&gt;AmpScope %1&lt;/h2&gt;&lt;p&gt;Watch mixed-precision training happen: number formats, autocast, loss scaling and GradScaler, bit by bit.&lt;/p&gt;&lt;table cellspacing=&apos;4&apos;&gt;&lt;tr&gt;&lt;td&gt;&lt;b&gt;AmpScope&lt;/b&gt;&lt;/td&gt;&lt;td&gt;%1&lt;/td&gt;&lt;/tr&gt;&lt;tr&gt;&lt;td&gt;&lt;b&gt;Qt&lt;/b&gt;&lt;/td&gt;&lt;td&gt;%2 (built with %3)&lt;/td&gt;&lt;/tr&gt;&lt;tr&gt;&lt;td&gt;&lt;b&gt;LibTorch&lt;/b&gt;&lt;/td&gt;&lt;td&gt;%4 (%5)&lt;/td&gt;&lt;/tr&gt;&lt;/table&gt;&lt;p&gt;Licence: &lt;b&gt;%6&lt;/b&gt;. AmpScope is free software: you can redistribute it and/or modify it under the terms of the &lt;a href=&apos;https://www.gnu.org/licenses/gpl-3.0.html&apos;&gt;GNU General Public License&lt;/a&gt;, version 3 or (at your option) any later version. It comes with no warranty.&lt;/p&gt;&lt;p&gt;Plots are drawn with &lt;b&gt;QCustomPlot&lt;/b&gt; by Emanuel Eichhammer (GPL). Training runs on &lt;b&gt;LibTorch&lt;/b&gt; (BSD-style licence); the interface uses &lt;b&gt;Qt&lt;/b&gt; (LGPL-3.0).&lt;/p&gt;</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>AmpScope %1
Qt %2 (built with %3)
LibTorch %4
Licence %5</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>BitCellsWidget</name>
    <message>
        <source>s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>exponent (%1)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>exp (%1)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>mantissa (%1)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>m (%1)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&lt;b&gt;Sign bit&lt;/b&gt;: 0 = positive, 1 = negative.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&lt;b&gt;Exponent bit %1&lt;/b&gt; (adds 2&lt;sup&gt;%1&lt;/sup&gt; to the biased exponent field).&lt;br&gt;The value&apos;s power of two is field &amp;minus; bias (%2); field 0 means zero or subnormal, all ones means infinity or NaN.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&lt;b&gt;Mantissa bit %1&lt;/b&gt;: adds 2&lt;sup&gt;&amp;minus;%2&lt;/sup&gt; to the significand 1.m (or 0.m for a subnormal).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1&lt;br&gt;Bit %2 of %3. &lt;i&gt;Click to flip it.&lt;/i&gt;</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>ClipNormPlot</name>
    <message>
        <source>step</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>gradient L2 norm (log)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1: norm clip_grad_norm_ saw</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1: true norm after clipping</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>max_norm = %1</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>FinfoTableWidget</name>
    <message>
        <source>The limits of each format, as &lt;code&gt;torch.finfo&lt;/code&gt; reports them (min is called &lt;i&gt;lowest&lt;/i&gt; here: the most negative finite value). &lt;b&gt;eps&lt;/b&gt; is the gap between 1 and the next value: the relative precision. BF16 has FP32&apos;s range but a larger eps than FP16.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>dtype</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>torch name</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>s+e+m</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>max</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>lowest (min)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>smallest normal</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>smallest subnormal</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>eps</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>digits</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The dtype&apos;s name in PyTorch.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Sign, exponent and mantissa bits.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Largest finite value: (2 − 2^−m) × 2^emax.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Most negative finite value, −max (torch.finfo().min).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Smallest positive normal value, 2^(1−bias) (torch.finfo().tiny).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Smallest positive subnormal value, 2^(1−bias−m); anything below half of it rounds to zero.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Distance from 1 to the next representable value, 2^−m.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Decimal digits the format always preserves, floor(m × log10 2).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Copy as CSV</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Copy the whole table to the clipboard as comma-separated values, at full double precision.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>FormatRowWidget</name>
    <message>
        <source>1+%1+%2 bits · bias %3</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 sign bit, %2 exponent bits, %3 stored mantissa bits. The exponent is stored with a bias of %4 = 2&lt;sup&gt;%2&amp;minus;1&lt;/sup&gt;&amp;minus;1, so field e means 2&lt;sup&gt;e&amp;minus;%4&lt;/sup&gt;. %5 byte(s) per element in memory.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>How the bits make the value.&lt;br&gt;Normal: (&amp;minus;1)&lt;sup&gt;s&lt;/sup&gt; &amp;times; 2&lt;sup&gt;e&amp;minus;bias&lt;/sup&gt; &amp;times; 1.m&lt;br&gt;Subnormal (e = 0): (&amp;minus;1)&lt;sup&gt;s&lt;/sup&gt; &amp;times; 2&lt;sup&gt;1&amp;minus;bias&lt;/sup&gt; &amp;times; 0.m&lt;br&gt;e all ones: infinity (m = 0) or NaN (m &amp;ne; 0).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The value this format actually stores: the input rounded to the nearest representable value (ties to even).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Absolute rounding error |stored &amp;minus; input|.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Relative rounding error |stored &amp;minus; input| / |input|. Compare it with this format&apos;s eps / 2 = %1.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The encoding as a hexadecimal bit pattern. Type it into the value field to read it back.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The class of the stored value: zero, subnormal, normal, infinity or NaN.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>stored</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>error</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>bits</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>class</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>prev</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Previous representable %1 value (toward &amp;minus;infinity); it becomes the entry value.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>next</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Next representable %1 value (toward +infinity); it becomes the entry value.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>overflow → NaN</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Too large for %1, which has no infinity: the value became NaN.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>NaN</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Not a number: exponent all ones and a non-zero mantissa.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>overflow → inf</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Larger than the format&apos;s max (%1 after rounding): stored as infinity.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>flushed to 0</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Smaller than half the smallest subnormal (%1): the value is lost, stored as zero. This is gradient underflow.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>subnormal</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Below the smallest normal value (%1): stored with fewer significant bits, so the relative error grows.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>exact</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Representable exactly: no rounding error.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>rounded</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Rounded to the nearest representable value.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 abs</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 rel</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>e = 0, m = 0:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>e all ones, m = 0:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>S.1111.111 is %1&apos;s only NaN pattern (it has no infinity)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>e all ones, m = %1 &amp;ne; 0: NaN</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>subnormal (&amp;minus;1)&lt;sup&gt;s&lt;/sup&gt;&amp;times;2&lt;sup&gt;1&amp;minus;bias&lt;/sup&gt;&amp;times;0.m =</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>(&amp;minus;1)&lt;sup&gt;s&lt;/sup&gt;&amp;times;2&lt;sup&gt;e&amp;minus;bias&lt;/sup&gt;&amp;times;1.m =</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>HeatMapPlot</name>
    <message>
        <source>Scaled</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Unscaled</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Scaled: as the GradScaler saw them; unscaled: as the optimizer gets them.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>step</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>binary exponent ⌊log₂|g|⌋</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>values per bin</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>FP16 flush to 0 below</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>FP16 subnormal below</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>FP16 overflow above</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>step %1
|g| in [%2, %3): %4 values</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>HistogramPlot</name>
    <message>
        <source>Scaled (as the GradScaler saw them)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Unscaled (true gradients)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Loss scaling multiplies every gradient by the scale: the histogram slides log₂(scale) bars to the right, out of FP16&apos;s flush-to-zero zone.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Which gradients: all parameters summed, all tapped activation gradients, or one tensor.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Log counts</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Modes</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Values with no exponent bin: exact zeros, infinities and NaNs. &quot;Would flush&quot; counts finite values that round to 0 in the mode&apos;s low-precision format (FP16 for FP32 modes, to show what would happen).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>binary exponent e = ⌊log₂|g|⌋   (bar e counts |g| in [2ᵉ, 2ᵉ⁺¹))</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>values per bin (count)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>FP16 → 0
|g| &lt; 2⁻²⁵
(2⁻²⁵ ties to 0)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>FP16
subnormal
2⁻²⁴ … 2⁻¹⁴</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>FP16 normal
2⁻¹⁴ … 65504</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>FP16 → inf
|g| ≥ 65520
(max 65504)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>BF16 normal 2⁻¹²⁶ … 3.4·10³⁸</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>BF16 subnormal</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>BF16 → 0</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>All layers (parameter gradients)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>All activation gradients</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&lt;span style=&apos;color:%1&apos;&gt;■&lt;/span&gt; &lt;b&gt;%2&lt;/b&gt; (step %3): %4 values · zero %5 · +inf %6 · −inf %7 · NaN %8 · would flush %9 (%10%)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No instrumented step yet (see &quot;Instrument every&quot; in the run panel).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>bin %1: |g| in [%2, %3)</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>LanguageManager</name>
    <message>
        <source>Unknown language &apos;%1&apos; (available: %2)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The Chinese translation (%1) could not be loaded.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Language</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>LessonBrowser</name>
    <message>
        <source>Number formats: range versus precision</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Memory and bandwidth per data type</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>model.half() versus mixed precision</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Autocast picks a precision per operation</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Gradient underflow</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Loss scaling and GradScaler</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>BF16 needs no GradScaler</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Gradient clipping with a scaler</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>What mixed precision does to memory</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Measuring whether it helps</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Section %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Lessons</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Each lesson follows one section of the mixed-precision chapter. Open one to load its configuration and bring its panels forward.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Open</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>§%1 %2</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>LessonPanel</name>
    <message>
        <source>What to look for (click to show the panel):</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Configuration:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Inject overflow into the next step</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Puts an infinity into the next step&apos;s gradients: a GradScaler skips that step and halves its scale; modes without a scaler diverge.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>◀ Previous</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Previous lesson (%1)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Next ▶</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Next lesson (%1)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>All lessons…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Next Lesson</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Previous Lesson</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No lesson open</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Open a lesson from the lesson browser.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Chapter section §%1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Lesson %1 of %2</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>LessonWorkspace</name>
    <message>
        <source>&amp;Lessons</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Browse Lessons…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Lesson</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Gradient norm and clipping</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Step time</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>LossPlot</name>
    <message>
        <source>Log y</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Logarithmic loss axis: late training differences stay visible.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Smoothing</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Exponential moving average of the loss (0 = raw values). NaN/Inf are never averaged away.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>step</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>loss (cross-entropy, nats)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>✕ %1 diverged at step %2</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>MainWindow</name>
    <message>
        <source>AmpScope</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Number formats</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;File</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Quit</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;View</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Reset layout</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Show every panel again, in its original place.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Help</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;About AmpScope</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>About &amp;Qt</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>MemoryCalculatorWidget</name>
    <message>
        <source>How much memory a tensor of N elements takes in each dtype. Halving the bytes per element halves the memory traffic of a bandwidth-bound operator. 1 GiB = 2&lt;sup&gt;30&lt;/sup&gt; bytes.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Elements:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>e.g. 1e9, 7e9, 1,000,000</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Number of elements: 1e9, 7e9 (a 7B-parameter model), 1,000,000 or 1_000_000.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>dtype</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>bytes / element</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>bytes</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>GiB</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Relative size: %1 of FP64&apos;s 8 bytes.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>TF32 is a compute format: tensors stay FP32 in memory (4 bytes).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 elements</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>MemoryLedgerTable</name>
    <message>
        <source>Measured by a counting CPU allocator at the last step of each mode.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Refresh</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Parameters</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Gradients</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Optimizer state</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Activations</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Temporaries</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Peak</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 bytes</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>ModePalette</name>
    <message>
        <source>FP32</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>FP16 AMP + GradScaler</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>FP16 AMP, no scaler</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>BF16 AMP</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>FP16 pure (model.half())</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>BF16 pure</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>NumberFormatsPanel</name>
    <message>
        <source>Bits &amp;&amp; values</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Range</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Limits (finfo)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Underflow</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Memory</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The entry value in every format, bit by bit.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Where each format&apos;s values live on a log2 axis, and why FP16 needs loss scaling and BF16 does not.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>torch.finfo for every format.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The chapter&apos;s gradient-underflow table.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Bytes and GiB of N elements per format.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Value:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>1e-8, 65504, -0, inf, nan, 0x3c00 …</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>A number (0.1, 1e-8, 65504, -0, inf, nan) or a bit pattern in hex (0x3c00) or binary (0b0011110000000000), read in the format chosen on the right. Every row below shows this value in its format.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>bit patterns in:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The format a typed bit pattern (0x…, 0b…) is read in.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Try:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>A small gradient: FP16 flushes it to zero, BF16 keeps it (the chapter).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Not representable in binary: every format rounds it.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>FP16&apos;s max.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Halfway to the next FP16 binade: rounds to FP16 infinity.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>1e-8 × 65536: the same gradient after loss scaling, safe in FP16.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Subnormal in FP32 and BF16.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Near FP32&apos;s max: BF16 rounds it to infinity.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Negative zero: only the sign bit is set.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Infinity: exponent all ones, mantissa zero.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Not a number.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>FP16 bit pattern of 1.0.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Bits: %1 sign &amp;nbsp;%2 exponent &amp;nbsp;%3 mantissa (dark = 1, pale = 0; click a bit to flip it) &amp;nbsp;&amp;nbsp;│&amp;nbsp;&amp;nbsp; %4 %5 %6 %7 %8</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>exact</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>rounded</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>subnormal</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>flushed to 0</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>overflow</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&lt;p&gt;&lt;b&gt;Why FP16 needs loss scaling and BF16 does not.&lt;/b&gt; Gradients of a typical network are tiny: most lie between 2&lt;sup&gt;&amp;minus;40&lt;/sup&gt; and 2&lt;sup&gt;&amp;minus;10&lt;/sup&gt; (green band). FP16&apos;s normal range starts at %1 (2&lt;sup&gt;&amp;minus;14&lt;/sup&gt;), its subnormals end at %2 (2&lt;sup&gt;&amp;minus;24&lt;/sup&gt;): the left part of the band becomes &lt;b&gt;zero&lt;/b&gt; and those parameters get no update. BF16 has FP32&apos;s 8 exponent bits, so its range reaches %3 and the whole band fits; it only pays in precision (eps %4 versus FP16&apos;s %5).&lt;/p&gt;&lt;p&gt;Loss scaling multiplies the loss, and so every gradient, by s = 2&lt;sup&gt;16&lt;/sup&gt; = 65536: the band slides 16 binades to the right, into FP16&apos;s range (1e-8 &amp;times; 65536 = 6.5536e-04), and the optimizer divides by s again in FP32.&lt;/p&gt;</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Type a value, e.g. 1e-8 or 0x3c00.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 read as %2 = &lt;b&gt;%3&lt;/b&gt;</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>as a double: %1 &amp;nbsp;·&amp;nbsp; log&lt;sub&gt;2&lt;/sub&gt;|x| = %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>= &lt;b&gt;%1&lt;/b&gt;</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>OpDtypeTable</name>
    <message>
        <source>Start or pause a run to see which op ran in which dtype.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Refresh</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Run one forward pass per mode (no update) and record each op&apos;s dtypes. Available while paused or finished.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Op</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Where</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source> (emulated)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>input %1, output %2%3</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>; emulated: FP32 arithmetic rounded exactly (RNE) to the low-precision format</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No op-dtype report available yet.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>One forward pass per mode. Italic: emulated dtype (FP32 arithmetic with exact rounding at autocast&apos;s cast points).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>One forward pass per mode.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>PlotPanel</name>
    <message>
        <source>Follow latest</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Keep the whole run in view as steps arrive. Zooming or panning turns it off.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>step %1</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>PresenterMode</name>
    <message>
        <source>&amp;Full Screen</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Presenter Scaling (Larger Text and Lines)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Hide Controls</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Leave Presenter View</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Presenter</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>RangeStripWidget</name>
    <message>
        <source>Each bar is one format on a log2 axis: pale orange the subnormal range (fewer significant bits), blue the normal range, the tick at the right end its max. The green band is where gradients of a typical network live; values left of a bar become zero.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>subnormal range</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>normal range</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>typical gradients %1 … %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>current value</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>… from %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>max ≈ %1 …</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>max %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>✓ holds all typical gradients</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>✗ below %1 → 0: loss scaling</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>✗ gradients → 0: needs scaling</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>|value| on a log2 axis</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>|x| = %1 ≈ %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>off axis</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>RunController</name>
    <message>
        <source>Op-dtype report for %1 failed: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The run could not start: %1</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>RunExporter</name>
    <message>
        <source>Cannot write %1: %2</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>RunPanel</name>
    <message>
        <source>Model and modes</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Tiny MLP (the chapter&apos;s 128-512-10)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Deep MLP (FP16 underflow preset)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Tiny Transformer (character LM)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Choosing a model loads its preset: the settings that make its lesson visible.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Model</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Compare</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Training</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>AdamW</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>SGD with momentum</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Optimizer</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Learning rate</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Step size of the optimizer (&gt; 0).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Batch size</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Examples per step (1 … 65536).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Seed</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Initial weights and batches: the same seed gives the same run.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Steps</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The run stops by itself after this many.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Loss weight</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The loss is multiplied by this before backward, as auxiliary losses are. Small weights push FP16 gradients below 2⁻²⁴, where they flush to zero.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Instrument every</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Histograms and rounding counts every N steps (1 = every step; larger keeps runs fast).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>GradScaler</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Initial scale</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>PyTorch&apos;s default: 65536 = 2¹⁶.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Growth factor</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Scale multiplier after a run of clean steps (&gt; 1; default 2).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Backoff factor</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Scale multiplier when gradients contain inf/NaN (in (0, 1); default 0.5).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Growth interval</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Clean steps before the scale grows (default 2000).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Gradient clipping</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Off</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>After unscale_ (correct)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Before unscale_ (wrong: clips scaled gradients)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Clip by norm</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Max norm</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>clip_grad_norm_&apos;s max_norm (&gt; 0).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>not a number</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>not a whole number</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>not a whole number ≥ 0</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>ScalePlot</name>
    <message>
        <source>step</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>loss scale (log₂ axis)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No mode in this run uses a GradScaler
(fp16-amp-scaled does).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1: skipped step</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>SessionFile</name>
    <message>
        <source>missing</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>expected a number or &quot;nan&quot;, &quot;inf&quot;, &quot;-inf&quot;</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>expected an integer</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>must not be negative</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>expected true or false</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>expected a string</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>expected an object</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>expected an array</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>unknown precision mode &apos;%1&apos;</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>expected [exponent, count]</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>exponent %1 is outside [%2, %3]</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>unknown model &apos;%1&apos;</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>unknown optimizer &apos;%1&apos;</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>unknown clipping order &apos;%1&apos;</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>must be in [1, 1024]</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>line %1, column %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the file is empty</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>not a valid session file (%1: %2); it may be damaged or cut short</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>not an AmpScope session (the top level is not a JSON object)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>not an AmpScope session (no &quot;format&quot; field)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>not an AmpScope session (format &quot;%1&quot;, expected &quot;%2&quot;)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>not a string</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>field &quot;version&quot;: expected a positive integer</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>written by a newer AmpScope (session format version %1; this AmpScope reads up to version %2). Update AmpScope to open it.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>steps must increase (step %1 after %2)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>field &quot;%1&quot;: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cannot write %1: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cannot open %1: %2</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>StepTimePlot</name>
    <message>
        <source>step</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>step time (ms)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1: %2 ms (mean of steps %3–%4)</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>ThemeManager</name>
    <message>
        <source>&amp;Theme</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Dark</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Light</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>TrainingWorkspace</name>
    <message>
        <source>Run</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Loss</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Loss scale</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Gradient exponents</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Exponents over time</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Underflow</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Op dtypes</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Memory ledger</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Training</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Run or pause the comparison (Space)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Step</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Exactly one training step in every mode (→ or S)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Stop</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Stop after the step in flight; the plots keep the run</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Reset</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Stop and clear the plots; the next run starts at step 1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source> Speed cap </source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>unlimited</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source> steps/s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>At most this many steps per second, so a class can watch slowly (0 = unlimited)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Inject overflow</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Put an inf into one gradient element of every mode at the next step: the GradScaler skips the step and halves its scale; modes without a scaler diverge.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Per mode: native (real low-precision kernels) or emulated (FP32 arithmetic with exact IEEE rounding where autocast would cast), and where a mode diverged.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Training failed</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The run stopped with an error:
%1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Pause</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Resume</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Fix the fields marked in the run panel first</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>step %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 steps/s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source> · native</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source> · &lt;i&gt;emulated&lt;/i&gt;</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source> &lt;span style=&apos;color:#c00000&apos;&gt;&lt;b&gt;✕ diverged @%1&lt;/b&gt;&lt;/span&gt;</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>UnderflowPlot</name>
    <message>
        <source>Flushed to zero</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Subnormal</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Overflowed</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Elements that were non-zero before a rounding point and exactly zero after it (solid line).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Elements left subnormal after rounding: they kept only part of their precision (dashed line).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Elements that were finite before a rounding point and ±inf after it (dotted line).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>count</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>% of elements</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>All rounding points</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>step</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>elements per instrumented step</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>flushed</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>subnormal</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>overflowed</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Layer %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>% of elements at rounding points</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>UnderflowTableWidget</name>
    <message>
        <source>Small gradients, as in the chapter: an FP32 tensor cast to FP16 and to BF16. FP16&apos;s smallest subnormal is about 6e-8, so 1e-8 and 1e-9 become &lt;b&gt;0&lt;/b&gt; (the parameter gets no update). BF16 keeps FP32&apos;s exponent range: every value survives, only with fewer digits.&lt;br&gt;%1 became zero &amp;nbsp; %2 stored as a subnormal (reduced precision). Double-click a row to inspect its value.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>0</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>subnormal</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>value</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>FP32</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>FP16</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>BF16</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Underflow: %1 is below half of %2&apos;s smallest subnormal and became 0.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Subnormal in %1: relative error %2.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Relative error %1.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>ampscope::ui</name>
    <message>
        <source>AmpScope: watch mixed-precision training happen.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Show this help and exit.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Print the versions of AmpScope, Qt and LibTorch and exit.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Render the main window into the PNG &lt;file&gt; and exit.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>file</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Window size for --screenshot, e.g. 1400x900.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>WxH</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Device pixel ratio of the screenshot, e.g. 2 for a HiDPI image.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>S</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Unexpected argument: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>--size must be WIDTHxHEIGHT with positive integers, e.g. 1400x900 (got &quot;%1&quot;)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>--size: at most %1 pixels per edge (got &quot;%2&quot;)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>--scale must be a number greater than 0 and at most %1 (got &quot;%2&quot;)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>--screenshot needs a file name</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>--size and --scale only apply to --screenshot</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>ampscope::ui::formats</name>
    <message>
        <source>Enter a number of elements, e.g. 1e9 or 1,000,000,000.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&quot;%1&quot; is not a number. Use digits, optionally with an exponent (7e9) or thousands separators (1,000,000).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Too many elements: at most 1e18.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The element count cannot be negative.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The element count must be a whole number.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>main</name>
    <message>
        <source>ampscope: cannot write the screenshot to %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Saved %1 (%2x%3 pixels)</source>
        <translation type="unfinished"></translation>
    </message>
</context>
</TS>
