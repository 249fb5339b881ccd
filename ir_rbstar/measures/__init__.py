"""Measure declarations (names, parameters, definitions). Registration happens in :func:`register`."""
from __future__ import annotations

import ir_measures
from ir_measures.measures import registry

from .base import RbstarMeasure
from .rankbiased import RANKBIASED, RBA, RBA_res, RBO, RBO_ext, RBO_res, RBP, RBP_res, RBR, RBR_res
from .ties import TIES, AP_TA, F1_TA, P_TA, R_TA, RBP_TA, RR_TA, nDCG_TA
from .twist import TWIST, Twist, Twist_rho, Twist_sigma
from .nrg import NRG_MEASURES, NRG, UniqueRel, RarP, TaSC
from .med import MED_MEASURES, MED_P, MED_RBP, MED_nDCG, MED_AP, MED_ERR

__all__ = ["ALL", "register", "RbstarMeasure", "RBP", "RBP_res", "RBR", "RBR_res", "RBA", "RBA_res",
           "RBO", "RBO_res", "RBO_ext", "P_TA", "R_TA", "F1_TA", "AP_TA", "RR_TA", "nDCG_TA", "RBP_TA",
           "Twist", "Twist_rho", "Twist_sigma", "NRG", "UniqueRel", "RarP", "TaSC",
           "MED_P", "MED_RBP", "MED_nDCG", "MED_AP", "MED_ERR"]

ALL = list(RANKBIASED) + list(TIES) + list(TWIST) + list(NRG_MEASURES) + list(MED_MEASURES)


def register() -> None:
    """Register every measure with ir_measures' parser (idempotent).

    ``RBP`` is ir_measures' own measure; its registry entry is replaced by a subclass that validates
    its parameters and always shows ``p`` in its label. Built-in providers still serve it as before.
    """
    for m in ALL:
        current = registry.get(m.NAME)
        if current is not m:
            registry[m.NAME] = m
    # ir_measures.RBP is the object users import; make it the same declaration
    ir_measures.RBP = RBP
    ir_measures.measures.RBP = RBP
