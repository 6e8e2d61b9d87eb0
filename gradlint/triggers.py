"""Each rule's prefilter as data: ``code: (triggers, gates, project gate, source repair pattern)``.

Read by ``gradlint.prefilter`` so that a file no rule could fire on is
answered without importing LibCST or any rule. Gates are written as
``prefilter.gate_spec`` writes them; the project gate by its name in
``prefilter.PROJECT_GATES``; the repair pattern is ``SourceRepair.pattern``
(or, when a repair has none, any of the rule's triggers).

Generated from the rule classes by ``tests/update_trigger_table.py``: do not edit.
"""

RULES = {
    'GL001': (('volatile', 'Variable'), (), None, None),
    'GL002': (('Variable',), (), None, None),
    'GL003': (('.data',), (('any', (('re', '\\.data[\\s\\\\]*\\[', 32), ('re', '\\.data[\\s\\\\]*\\.[\\s\\\\]*(?:cpu|cuda|float|double|half|long|int|numpy)\\b', 32), ('re', '(?:[-+*/%&|^@]|//|\\*\\*|<<|>>)=[\\s\\S]{0,300}?\\.data\\b', 32))),), None, None),
    'GL004': (('.volatile',), (), None, None),
    'GL005': (('async',), (('re', '\\basync\\s*=', 32),), None, '\\basync(?:[\\s\\\\]|#[^\\r\\n]*)*='),
    'GL101': (('.eval(', '.train(', 'def', 'for'), (('any', (('lower', '\\.eval\\((?:\\s|\\\\|#[^\\n]*)*\\)'), ('lower', '\\.train\\([^)]*?false\\b'), ('lower', '\\.train\\(\\s*(?:mode\\s*=\\s*)?(?!true\\b)[a-z_]\\w*\\s*\\)'), ('lower', '\\.from_pretrained\\('), ('lower', '\\(\\s*\\w*?(?<![a-z])(?:eval|evaluate|evaluation|validate|validation|val|valid|test|testing|predict|prediction|infer|inference|generate|generation|sample|sampling|decode|beam_search|greedy_search)(?![a-z])\\w*\\s*[,)]'), ('lower', 'def\\s+\\w*?(?<![a-z])(?:eval|evaluate|evaluation|validate|validation|val|valid|test|testing|predict|prediction|infer|inference|generate|generation|sample|sampling|decode|beam_search|greedy_search)(?![a-z])'), ('lower', 'in(?<!\\win)\\s+[^\\n:]*?(?<![a-z])(?:eval|evaluate|evaluation|validate|validation|val|valid|test|testing|predict|prediction|infer|inference|generate|generation|sample|sampling|decode|beam_search|greedy_search)(?![a-z])'))), ('any', (('lower', '\\.eval\\((?:\\s|\\\\|#[^\\n]*)*\\)'), ('lower', '\\.train\\([^)]*?false\\b'), ('lower', '\\.train\\(\\s*(?:mode\\s*=\\s*)?(?!true\\b)[a-z_]\\w*\\s*\\)'), ('lower', '\\.from_pretrained\\('), ('lower', '\\(\\s*\\w*?(?<![a-z])(?:eval|evaluate|evaluation|validate|validation|val|valid|test|testing|predict|prediction|infer|inference|generate|generation|sample|sampling|decode|beam_search|greedy_search)(?![a-z])\\w*\\s*[,)]'), ('lower', 'self\\s*\\('), ('lower', '\\.forward\\s*\\('), ('lower', '(?:[gd](?<!\\w[gd])|net[gd](?<!\\wnet[gd]))\\s*\\('), ('lower', '(?<![a-z])(?:model|models|net|network|encoder|decoder|backbone|classifier|generator|discriminator|critic|actor|policy|teacher|student|resnet\\d*|vgg\\d*|bert|gpt\\d*|transformer|unet|vae|cnn|rnn|lstm|mlp|detector|segmenter|predictor|regressor)s?(?:[_\\d]\\w*)?(?:\\[[^\\]\\n]*\\])*\\s*\\(')))), 'inference-called', None),
    'GL102': (('no_grad', 'inference_mode', 'enable_grad', 'set_grad_enabled'), (('re', '(?:no_grad|inference_mode|enable_grad|set_grad_enabled)\\b(?![\\s\\\\]*\\()', 32),), None, None),
    'GL103': (('backward', 'autograd'), (('re', '(?:no_grad|inference_mode|set_grad_enabled)\\b', 32),), None, None),
    'GL104': (('requires_grad',), (('re', 'requires_grad[\\s)\\\\]*=[\\s(\\\\]*False\\b|requires_grad_[\\s\\\\]*\\([\\s(\\\\]*False\\b', 32),), None, None),
    'GL105': (('set_grad_enabled',), (), None, None),
    'GL106': (('no_grad', 'inference_mode', 'set_grad_enabled'), (('any', (('re', '(?s)(?:no_grad|inference_mode|set_grad_enabled)\\b.*?(?:no_grad|inference_mode|set_grad_enabled)\\b', 48), ('re', '(?:no_grad|inference_mode|set_grad_enabled)\\b\\s+as\\b', 32))),), None, None),
    'GL107': (('no_grad', 'inference_mode', 'enable_grad', 'set_grad_enabled'), (('any', (('re', '(?:no_grad|inference_mode|enable_grad)\\s+as\\b', 32), ('re', '(?m)(?:^|[;:])[\\s(\\\\]*(?:\\w+[\\s)\\\\]*=[\\s(\\\\]*)?(?:\\w+[\\s\\\\]*\\.[\\s\\\\]*)*(?:no_grad|inference_mode|enable_grad)[\\s\\\\]*\\(', 40), ('re', '\\basync[\\s\\\\]+def\\b', 32))),), None, None),
    'GL201': (('.detach()',), (('re', '\\.detach\\(\\)(?:[\\s\\\\]*\\.[\\s\\\\]*(?:(?:as_strided|expand_as|transpose|unflatten|unsqueeze|diagonal|moveaxis|swapaxes|swapdims|movedim|permute|squeeze|view_as|expand|narrow|select|view|mH|mT|H|T|t)\\b|(?!_)\\w+_\\b)|\\s*\\[|\\s*(?:[-+*/%&|^@]|//|\\*\\*|<<|>>)=|[ \\t)]*(?:[\\r\\n;#,]|\\\\|\\Z))', 32),), None, None),
    'GL202': (('.data',), (('re', '\\.data\\b(?:[\\s\\\\]*\\.[\\s\\\\]*(?:(?:as_strided|expand_as|transpose|unflatten|unsqueeze|diagonal|moveaxis|swapaxes|swapdims|movedim|permute|squeeze|view_as|expand|narrow|select|view|mH|mT|H|T|t)\\b|(?!_)\\w+_\\b)|\\s*\\[|\\s*(?:[-+*/%&|^@]|//|\\*\\*|<<|>>)=|[ \\t)]*(?:[\\r\\n;#,]|\\\\|\\Z))|\\.data\\b[ \\t]*=(?!=)', 32),), None, None),
    'GL203': (('.data',), (('re', 'torch', 32), ('re', '\\.data\\b(?!\\s*=[^=]|(?:[ \\t]*\\.[ \\t]*\\w+)*[ \\t]+import\\b)', 32)), None, None),
    'GL204': (('.data',), (('re', '\\.data\\b(?:[\\s\\\\]*\\.[\\s\\\\]*(?:(?:as_strided|expand_as|transpose|unflatten|unsqueeze|diagonal|moveaxis|swapaxes|swapdims|movedim|permute|squeeze|view_as|expand|narrow|select|view|mH|mT|H|T|t)\\b|(?!_)\\w+_\\b)|\\s*\\[|\\s*(?:[-+*/%&|^@]|//|\\*\\*|<<|>>)=|[ \\t)]*(?:[\\r\\n;#,]|\\\\|\\Z))|\\.data\\b[ \\t]*=(?!=)', 32),), None, None),
    'GL301': (('for', 'while', 'clone', 'self.'), (('any', (('re', '[\\r\\n][ \\t\\f]*(?:async\\s+)?(?:for|while)\\b', 32), ('re', '\\A\\ufeff?[ \\t\\f]*(?:async\\s+)?(?:for|while)\\b', 32), ('re', '\\.clone\\b', 32), ('re', 'self\\.(?<!\\wself\\.)[\\w.]+(?:\\[[^\\]\\n]*\\])?[ \\t]*[-+]=', 32), ('re', 'self\\.(?<!\\wself\\.)[\\w.]+\\.append\\b', 32))), ('any', (('re', '\\][\\s)\\\\]*=(?!=)', 32), ('re', '[-+]=', 32), ('re', '\\+[\\s(\\\\]*\\w+[ \\t)\\\\]*(?:[\\r\\n;#]|\\Z)', 32), ('re', 'append(?<!\\wappend)\\b', 32), ('re', '\\.clone\\b', 32), ('re', '\\b(\\w+)[ \\t]*=[\\s(\\\\]*\\1\\b[\\s)\\\\]*[-+]', 32)))), None, None),
    'GL302': (('.requires_grad',), (('re', '\\.requires_grad[\\s)\\\\]*=(?!=)', 32),), None, None),
    'GL303': (('.require_grad', '.requires_grad_'), (), None, None),
}
