"""Precision case: `if flag: m.train() else: m.eval()` opens a region only where a
call of the file makes the flag false. Not reported: a flag that every call
makes true (dropout kept on for sampling), a flag passed on as a variable, and
branches that switch two different models.
"""


def dropout_predict(model, x, stochastic):
    if stochastic:
        model.train()
    else:
        model.eval()
    return model(x)  # expect-not: GL101


def always_stochastic(model, x):
    return dropout_predict(model, x, True)


def passed_on(model, x, flag):
    return dropout_predict(model, x, flag)


def two_models(student, teacher, x, distill):
    if distill:
        student.train()
    else:
        teacher.eval()
    return teacher(x)  # expect-not: GL101


def call_two(student, teacher, x):
    return two_models(student, teacher, x, False)
